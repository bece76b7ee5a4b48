#!/usr/bin/env bash
# Upstream's feature gate check: the versioned feature list and feature_list.md match the gates.
# Through run_upstream_check, like every upstream script here: with Go on PATH (GOTOOLCHAIN=local),
# not the toolchain of the tree's .go-version, which upstream's scripts would download and whose
# build cache nothing else shares.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
run_upstream_check verify-featuregates.sh
