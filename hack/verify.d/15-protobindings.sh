#!/usr/bin/env bash
# The Go bindings of the series' gRPC APIs are what hack/protobindings.sh generates from api.proto.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
before=$(git -C "$TREE" status --porcelain)
"$ROOT/hack/protobindings.sh" "$TREE"
if [ "$(git -C "$TREE" status --porcelain)" != "$before" ]; then
  echo "error: generated gRPC bindings are out of date (run hack/protobindings.sh on the tree and commit):" >&2
  git -C "$TREE" status --porcelain | sed 's/^/    /' >&2
  if [ -z "$before" ]; then
    git -C "$TREE" checkout -q -- . # leave the tree as it was: only the generator changed it
  fi
  exit 1
fi
