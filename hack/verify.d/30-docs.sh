#!/usr/bin/env bash
# The documents name only what exists: every inline-code name, flag, option, metric and path in
# them, and every quoted e2e spec name, is in the project or the patched tree (hack/tools/doccheck).
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
go run ./hack/tools/doccheck -root "$ROOT" -tree "$TREE" \
  KEP.md README.md docs/driver-guide.md docs/ci.md e2e-node/README.md staging/README.md
