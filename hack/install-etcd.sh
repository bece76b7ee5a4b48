#!/usr/bin/env bash
# Builds etcd, at the version the tree's hack/lib/etcd.sh pins, from its Go module (no prebuilt
# download), into _output/tools/etcd-<version>/etcd, and prints that directory. Upstream's
# integration tests find etcd on PATH. Reused when already built.
#
# Usage: hack/install-etcd.sh        e.g. PATH="$(hack/install-etcd.sh):$PATH" go test ./test/integration/...
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ -f "$TREE/hack/lib/etcd.sh" ] || die "no tree at $TREE: run make tree first"
version=$(sed -n 's/^ETCD_VERSION=${ETCD_VERSION:-\(.*\)}$/\1/p' "$TREE/hack/lib/etcd.sh")
[ -n "$version" ] || die "cannot find ETCD_VERSION in $TREE/hack/lib/etcd.sh"
dir=$ROOT/_output/tools/etcd-$version
if [ ! -x "$dir/etcd" ]; then
  log "building etcd v$version from go.etcd.io/etcd/server/v3 (about 20s)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  printf 'module etcdbuild\n\ngo %s\n' "$(go env GOVERSION | sed 's/^go//')" >"$work/go.mod"
  (cd "$work" && GOWORK=off GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v$version" >/dev/null 2>&1 ||
    { echo "error: go get go.etcd.io/etcd/server/v3@v$version failed" >&2; exit 1; })
  mkdir -p "$dir"
  (cd "$work" && GOWORK=off GOFLAGS=-mod=mod go build -o "$dir/etcd" go.etcd.io/etcd/server/v3)
fi
echo "$dir"
