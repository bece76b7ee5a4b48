#!/usr/bin/env bash
# Upstream's hack/verify-file-sizes.sh: no binary file of the tree (git ls-files) is larger than
# 1 MiB unless upstream allows it. The tree's .git/info/attributes says `* -text` (hack/lib.sh:
# files stay byte for byte), so `git ls-files --eol` prints one attribute word where upstream's
# script reads two; it then runs from a copy that reads the line with one attribute word less,
# nothing else changed.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
TREE=$(cd "$TREE" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/prm-file-sizes.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed -e 's#^KUBE_ROOT=.*#KUBE_ROOT='"$TREE"'#' \
  -e 's#read -r index tree attr eol file; do#read -r index tree attr file; do#' \
  "$TREE/hack/verify-file-sizes.sh" >"$work/verify-file-sizes.sh"
grep -q 'read -r index tree attr file; do' "$work/verify-file-sizes.sh" ||
  die "upstream's hack/verify-file-sizes.sh changed: cannot adapt it to the tree's attributes"
if ! grep -q '^\* -text$' "$TREE/.git/info/attributes" 2>/dev/null; then
  cp "$TREE/hack/verify-file-sizes.sh" "$work/verify-file-sizes.sh" # upstream's attributes: as it is
  sed -i 's#^KUBE_ROOT=.*#KUBE_ROOT='"$TREE"'#' "$work/verify-file-sizes.sh"
fi
rc=0
(cd "$TREE" && bash "$work/verify-file-sizes.sh") || rc=$?
[ $rc -eq 0 ] || die "upstream's hack/verify-file-sizes.sh fails (exit $rc; findings above)"
