#!/usr/bin/env bash
# Rebases the series onto another upstream release.
#
# Usage: hack/rebase.sh VERSION        e.g. hack/rebase.sh v1.37.3
#        hack/rebase.sh --continue     after resolving a conflict
#        hack/rebase.sh --abort        give up and go back to the current release
#
# The new release is assembled like `make tree` does and committed into the tree's repository next
# to the current one; the series is then rebased with git's 3-way merge (`git rebase --onto`). A
# conflict in a go.mod that only comes from the staging modules' version pins (k8s.io/api v0.37.2 in
# the patch, v0.37.1 in the new release) is resolved here: both sides of the patch are read with the
# new release's pins and merged again. On any other conflict git stops inside _output/kubernetes:
# fix the files, `git add` them, `git rebase --continue`, then run `hack/rebase.sh --continue` (or
# `make rebase-continue`). On success the pin (hack/upstream.env) is updated, the tag "upstream"
# moves, and patches/ and staging/ are exported; review them with git diff and commit.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state_file() { echo "$TREE/.git/prm-rebase"; }

# resolve_gomod_pins OLD NEW: for each conflicted go.mod, merges the patch again with the staging
# modules' pins OLD (the patch's) read as NEW (the new release's); adds the files it resolved. Fails
# when a conflict is left (in another file, or one the pins do not explain).
resolve_gomod_pins() {
  local old=$1 new=$2 f pins left=0
  pins="s#^(\t(require )?k8s\.io/[a-z0-9-]+(/[a-z0-9-]+)* )${old//./\\.}\$#\\1$new#"
  while read -r f; do
    if [ "$(basename "$f")" != go.mod ]; then left=1; continue; fi
    tgit show "REBASE_HEAD~1:$f" | sed -E "$pins" >"$TREE/.git/prm-base.mod" || { left=1; continue; }
    tgit show "REBASE_HEAD:$f" | sed -E "$pins" >"$TREE/.git/prm-theirs.mod" || { left=1; continue; }
    tgit show "HEAD:$f" >"$TREE/.git/prm-ours.mod" || { left=1; continue; }
    if git merge-file -p "$TREE/.git/prm-ours.mod" "$TREE/.git/prm-base.mod" "$TREE/.git/prm-theirs.mod" >"$TREE/$f.merged"; then
      mv "$TREE/$f.merged" "$TREE/$f" && tgit add "$f" && info "resolved $f: the staging pins $old read as $new"
    else
      rm -f "$TREE/$f.merged"
      left=1
    fi
  done < <(tgit diff --name-only --diff-filter=U)
  rm -f "$TREE"/.git/prm-{base,theirs,ours}.mod
  return $left
}

# rebase_with_pins OLD NEW GIT_REBASE_ARGS...: git rebase, resolving the go.mod pin conflicts on the way.
rebase_with_pins() {
  local old=$1 new=$2
  shift 2
  tgit -c core.editor=true -c advice.resolveConflict=false -c advice.mergeConflict=false rebase "$@" && return 0
  while [ -d "$TREE/.git/rebase-merge" ] && resolve_gomod_pins "$old" "$new"; do
    tgit -c core.editor=true rebase --continue && return 0
  done
  return 1
}

finish() {
  local new_version new_commit
  new_version=$(sed -n 's/^version=//p' "$(state_file)")
  new_commit=$(sed -n 's/^commit=//p' "$(state_file)")
  [ -d "$TREE/.git/rebase-merge" ] && die "the rebase is still in progress: resolve it in $TREE (git status), then run hack/rebase.sh --continue again"
  tgit merge-base --is-ancestor "$new_commit" HEAD || die "HEAD of $TREE is not based on $new_version; did the rebase finish?"
  tgit tag -f upstream "$new_commit" >/dev/null
  tgit branch -f series HEAD >/dev/null 2>&1 || true
  tgit checkout -q series
  printf '%s\n' "# The upstream release the series applies to. \`make rebase VERSION=...\` rewrites this file." \
    "# KUBE_VERSION is k8s.io/kubernetes; STAGING_VERSION is every k8s.io/<staging module>." \
    "KUBE_VERSION=$new_version" "STAGING_VERSION=$(staging_version_for "$new_version")" >"$PIN_FILE"
  rm -f "$(state_file)"
  KUBE_VERSION=$new_version "$ROOT/hack/export.sh"
  log "rebased $(tgit rev-list --count upstream..HEAD) patches onto $new_version; review and commit patches/, staging/ and hack/upstream.env"
}

case ${1:-} in
-h | --help | "") sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit ;;
--continue)
  [ -f "$(state_file)" ] || die "no rebase in progress"
  if [ -d "$TREE/.git/rebase-merge" ]; then
    log "continuing git rebase"
    old_staging=$(sed -n 's/^old_staging=//p' "$(state_file)")
    new_staging=$(staging_version_for "$(sed -n 's/^version=//p' "$(state_file)")")
    rebase_with_pins "$old_staging" "$new_staging" --continue ||
      die "git rebase stopped again: resolve, git add, then hack/rebase.sh --continue"
  fi
  finish
  exit 0
  ;;
--abort)
  [ -f "$(state_file)" ] || die "no rebase in progress"
  [ -d "$TREE/.git/rebase-merge" ] && tgit rebase --abort
  tgit checkout -q series
  rm -f "$(state_file)"
  log "rebase aborted; the tree is back on $KUBE_VERSION"
  exit 0
  ;;
v*) new_version=$1 ;;
*) die "VERSION must look like v1.37.3 (see --help)" ;;
esac

[[ $new_version =~ ^v1\.[0-9]+\.[0-9]+$ ]] || die "VERSION must look like v1.37.3, got $new_version"
[ -f "$(state_file)" ] && die "a rebase is already in progress: hack/rebase.sh --continue or --abort"
"$ROOT/hack/tree.sh"
tree_has_local_work && die "$TREE has commits or edits that are not in patches/: export or discard them first"
[ "$new_version" = "$KUBE_VERSION" ] && { log "the series is already on $new_version"; exit 0; }

log "assembling upstream $new_version"
work=$(mktemp -d "${TMPDIR:-/tmp}/prm-rebase.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
assemble_upstream "$new_version" "$work/kubernetes"
new_commit=$(commit_upstream "$work/kubernetes" "$new_version")
printf 'version=%s\ncommit=%s\nold_staging=%s\n' "$new_version" "$new_commit" "$STAGING_VERSION" >"$(state_file)"

log "rebasing $(tgit rev-list --count upstream..HEAD) patches from $KUBE_VERSION onto $new_version (3-way)"
tgit checkout -q series
if ! rebase_with_pins "$STAGING_VERSION" "$(staging_version_for "$new_version")" \
  --quiet --committer-date-is-author-date --onto "$new_commit" upstream series; then
  cat >&2 <<EOF

The series does not apply cleanly to $new_version. git stopped inside $TREE:
  cd $TREE && git status          # the conflicting files
  # fix them, then:
  git add <files> && git rebase --continue
  # when git is done:
  $ROOT/hack/rebase.sh --continue # moves the pin and exports patches/
To give up: hack/rebase.sh --abort
EOF
  exit 1
fi
finish
