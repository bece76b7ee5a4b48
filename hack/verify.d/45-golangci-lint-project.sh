#!/usr/bin/env bash
# The project's own Go code (drivers/, sanity/, hack/tools/, e2e-node/cmd/ and the linter module
# hack/tools/golangci-lint) passes golangci-lint with upstream's hack/golangci.yaml of the tree,
# plugins included: 40-golangci-lint.sh --project.
exec "$(dirname "${BASH_SOURCE[0]}")/40-golangci-lint.sh" --project "$@"
