#!/usr/bin/env bash
# Upstream's import restrictions (.import-restrictions files, checked by hack/verify-import-boss.sh
# with cmd/import-boss) on every Go package the series adds or changes. Upstream's script checks
# the whole workspace; this runs the same tool with the same flags on the series' packages only (or
# on the package directories given).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
upstream_script_env
pkgs=("$@")
[ $# -gt 0 ] || mapfile -t pkgs < <(series_package_dirs)
[ ${#pkgs[@]} -gt 0 ] || exit 0
info "import-boss on ${#pkgs[@]} packages"
tool=$KUBE_GOPATH/bin/import-boss
mkdir -p "$(dirname "$tool")"
(cd "$TREE" && nice -n 19 go build -o "$tool" ./cmd/import-boss) || die "could not build the tree's cmd/import-boss"
rc=0
(cd "$TREE" && nice -n 19 "$tool" -v "${KUBE_VERBOSE:-0}" "${pkgs[@]}") || rc=$?
[ $rc -eq 0 ] || die "import-boss (upstream's hack/verify-import-boss.sh) reports forbidden imports above (exit $rc)"
