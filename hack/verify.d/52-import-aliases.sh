#!/usr/bin/env bash
# Upstream's hack/verify-import-aliases.sh: the Go files of test/e2e and test/e2e_node import packages
# under the preferred aliases of hack/.import-aliases (cmd/preferredimports).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
run_upstream_check verify-import-aliases.sh
