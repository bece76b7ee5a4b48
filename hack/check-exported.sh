#!/usr/bin/env bash
# Fails, listing them, when the assembled tree has commits or edits that are not in patches/ (or
# staging/ differs from the tree). Used by the before-stop hook: work that lives only in _output/ is lost.
#
# Usage: hack/check-exported.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ -d "$TREE/.git" ] || { echo "no tree at $TREE: nothing to check"; exit 0; }

rc=0
dirty=$(tgit status --porcelain --untracked-files=normal)
if [ -n "$dirty" ]; then
  echo "uncommitted edits in $TREE (they are in no patch):"
  printf '%s\n' "$dirty" | sed 's/^/  /'
  rc=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_series "$TREE" "$tmp/patches"
"$ROOT/hack/export-staging.sh" "$TREE" "$tmp/staging"
if ! diff -r -q "$PATCHES" "$tmp/patches" -x '*.md' >"$tmp/diff" 2>&1; then
  echo "the tree's commits (upstream..HEAD) differ from patches/:"
  sed -e "s#$tmp/patches#tree#g" -e "s#$PATCHES#patches#g" -e 's/^/  /' "$tmp/diff"
  echo "run 'make export' to write them to patches/ (or 'make tree' if patches/ is the newer side)."
  rc=1
fi
if ! diff -r -q "$STAGING_OUT" "$tmp/staging" -x README.md >"$tmp/diff" 2>&1; then
  echo "staging/ differs from the tree:"
  sed -e "s#$tmp/staging#tree#g" -e "s#$STAGING_OUT#staging#g" -e 's/^/  /' "$tmp/diff"
  echo "run 'make export'."
  rc=1
fi
exit $rc
