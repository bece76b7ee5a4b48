#!/usr/bin/env bash
# Assembles the pinned upstream Kubernetes into _output/kubernetes and applies the series.
#
# Usage: hack/tree.sh [--force]
#
# The tree is a git repository: its first commit (tag "upstream") is k8s.io/kubernetes at the pinned
# version (hack/upstream.env) with every staging module from the Go module proxy; on top, one commit
# per patch of patches/. Re-running reuses the tree when neither the pin nor the series changed, and
# re-applies the series (without downloading again) when only the series changed.
#
# A tree with commits or edits that are not in patches/ is never thrown away: export them first
# (make export), or pass --force to discard them.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

force=false
for arg in "$@"; do
  case $arg in
  --force) force=true ;;
  -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument $arg (see --help)" ;;
  esac
done

upstream_subject="upstream: k8s.io/kubernetes $KUBE_VERSION"

if [ -d "$TREE/.git" ]; then
  if [ "$(stamp_value fingerprint)" = "$(series_fingerprint)" ]; then
    log "tree $TREE is up to date with $KUBE_VERSION and $(series_files | wc -l) patches: nothing to do"
    exit 0
  fi
  if tree_has_local_work && ! $force; then
    tgit status --short | head -n 20 >&2
    die "$TREE has commits or edits that are not in patches/.
  Export them first (make export), or discard them (make tree FORCE=1)."
  fi
  if [ "$(tgit log -1 --format=%s upstream 2>/dev/null)" = "$upstream_subject" ]; then
    log "series changed: re-applying $(series_files | wc -l) patches onto upstream $KUBE_VERSION"
    tgit am --abort >/dev/null 2>&1 || true
    tgit reset --quiet --hard upstream
    tgit clean -fdxq
    apply_series "$TREE" || die "the series does not apply to $KUBE_VERSION; the tree stops at the failing patch"
    write_stamp
    log "tree ready: $TREE ($(tgit rev-list --count upstream..HEAD) patches on $KUBE_VERSION)"
    exit 0
  fi
  log "pin changed: assembling a new tree"
  rm -rf "$TREE"
fi

log "assembling upstream $KUBE_VERSION into $TREE"
rm -rf "$TREE.tmp"
assemble_upstream "$KUBE_VERSION" "$TREE.tmp"
mv "$TREE.tmp" "$TREE"
init_tree_repo
log "committing upstream (tag: upstream)"
commit=$(commit_upstream "$TREE" "$KUBE_VERSION")
tgit update-ref refs/heads/series "$commit"
tgit tag -f upstream "$commit" >/dev/null
tgit reset --quiet "$commit"
log "applying $(series_files | wc -l) patches"
apply_series "$TREE" || die "the series does not apply to $KUBE_VERSION; the tree stops at the failing patch"
write_stamp
log "tree ready: $TREE ($(tgit rev-list --count upstream..HEAD) patches on $KUBE_VERSION)"
