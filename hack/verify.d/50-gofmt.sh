#!/usr/bin/env bash
# Upstream's hack/verify-gofmt.sh on the whole tree: gofmt -s (simplify) of the tree's Go, every Go
# file outside vendor/, third_party/ and testdata/.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
run_upstream_check verify-gofmt.sh
