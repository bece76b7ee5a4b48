#!/usr/bin/env bash
# Generated code is up to date: hack/codegen.sh (upstream's generators, run the way upstream's
# verify-codegen and verify-openapi-spec run them) changes no file of the tree.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

before=$(git -C "$TREE" status --porcelain)
"$ROOT/hack/codegen.sh" "$TREE"
if [ -n "$(git -C "$TREE" status --porcelain)" ]; then
  echo "error: generated files are not up to date (run hack/codegen.sh on the tree and commit):" >&2
  git -C "$TREE" status --porcelain --untracked-files=all | sed 's/^/    /' >&2
  if [ -z "$before" ]; then
    # Leave the tree as it was: only the generators changed it.
    git -C "$TREE" checkout -q -- .
    git -C "$TREE" clean -fdq
  else
    echo "(the tree had uncommitted changes before the check: they are listed too, and left alone)" >&2
  fi
  exit 1
fi
