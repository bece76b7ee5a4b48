#!/usr/bin/env bash
# Upstream's hack/verify-typecheck.sh (test/typecheck: the code type-checks on every platform
# Kubernetes builds for, linux, windows and darwin on each architecture) on every Go package the
# series adds or changes (or the package directories given): the series' kubelet code must still
# build for Windows and the rest.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
apt_install jq jq
pkgs=("$@")
[ $# -gt 0 ] || mapfile -t pkgs < <(series_package_dirs)
[ ${#pkgs[@]} -gt 0 ] || exit 0
info "typecheck of ${#pkgs[@]} packages"
run_upstream_check verify-typecheck.sh "${pkgs[@]}"
