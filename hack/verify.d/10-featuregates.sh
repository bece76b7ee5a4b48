#!/usr/bin/env bash
# Upstream's feature gate check: the versioned feature list and feature_list.md match the gates.
set -o errexit -o nounset -o pipefail
cd "$TREE"
bash hack/verify-featuregates.sh
