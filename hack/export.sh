#!/usr/bin/env bash
# Exports the series from the assembled tree: upstream..HEAD of _output/kubernetes becomes patches/,
# one file per commit, and the modules listed in hack/staging.list are copied to staging/.
#
# Usage: hack/export.sh
#
# The output is deterministic: no commit ids, dates of export or tool versions, so exporting an
# unchanged tree changes no file. Uncommitted edits in the tree are refused: commit them first.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in
-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac

[ -d "$TREE/.git" ] || die "no tree at $TREE: run make tree first"
tgit rev-parse -q --verify upstream >/dev/null || die "$TREE has no 'upstream' tag"
[ -d "$TREE/.git/rebase-apply" ] && die "a 'git am' is in progress in $TREE: finish it (git am --continue) or abort it first"
[ -d "$TREE/.git/rebase-merge" ] && die "a rebase is in progress in $TREE: finish it first (see make rebase)"
if [ -n "$(tgit status --porcelain --untracked-files=normal)" ]; then
  tgit status --short | head -n 20 >&2
  die "$TREE has uncommitted edits: commit them (one commit per logical patch) before exporting"
fi

log "exporting $(tgit rev-list --count upstream..HEAD) commits to $PATCHES"
export_series "$TREE" "$PATCHES"
"$ROOT/hack/export-staging.sh" "$TREE" "$STAGING_OUT"
write_stamp
git -C "$ROOT" status --short -- "$PATCHES" "$STAGING_OUT" | sed 's/^/    /' >&2 || true
