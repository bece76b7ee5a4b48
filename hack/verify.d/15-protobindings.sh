#!/usr/bin/env bash
# The Go bindings of the series' gRPC APIs are what hack/protobindings.sh generates from api.proto.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$ROOT/hack/protobindings.sh" "$TREE"
changed=$(git -C "$TREE" status --porcelain)
if [ -n "$changed" ]; then
  echo "generated gRPC bindings are out of date (run hack/protobindings.sh in the tree and commit):" >&2
  printf '%s\n' "$changed" >&2
  git -C "$TREE" checkout -q -- . # leave the tree as it was
  exit 1
fi
