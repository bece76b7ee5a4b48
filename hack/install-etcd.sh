#!/usr/bin/env bash
# Builds etcd from its Go module (no prebuilt download) at the version the tree pins in
# hack/lib/etcd.sh, into the cache outside the checkout (hack/cache.sh), and prints that directory.
# Upstream's integration tests and hack/codegen.sh's openapi-spec step find etcd on PATH. Reused
# when built.
#
# The tree's own go.mod requires go.etcd.io/etcd/server/v3; when it pins the same version, etcd is
# built with the tree's dependencies (and the Go build cache), else in a scratch module. The
# binary is static: scripts/kind-image.sh puts it into the etcd image of the kind node.
#
# Usage: hack/install-etcd.sh        e.g. PATH="$(hack/install-etcd.sh):$PATH" go test ./test/integration/...
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ -f "$TREE/hack/lib/etcd.sh" ] || die "no tree at $TREE: run make tree first"
version=$(sed -n 's/^ETCD_VERSION=${ETCD_VERSION:-\(.*\)}$/\1/p' "$TREE/hack/lib/etcd.sh")
[ -n "$version" ] || die "cannot find ETCD_VERSION in $TREE/hack/lib/etcd.sh"
pinned=false
! grep -q "go.etcd.io/etcd/server/v3 v$version\b" "$TREE/go.mod" || pinned=true
# build_etcd DIR: etcd into DIR/etcd. Static (CGO_ENABLED=0), so that the kind node image can carry
# it in an image without a libc.
build_etcd() {
  local dir=$1 work
  log "building etcd v$version from go.etcd.io/etcd/server/v3"
  if $pinned; then
    (cd "$TREE" && CGO_ENABLED=0 go build -trimpath -o "$dir/etcd" go.etcd.io/etcd/server/v3)
  else
    work=$(mktemp -d)
    printf 'module etcdbuild\n\ngo %s\n' "$(go env GOVERSION | sed 's/^go//')" >"$work/go.mod"
    (cd "$work" && GOWORK=off GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v$version" >/dev/null 2>&1) ||
      { rm -rf "$work"; die "go get go.etcd.io/etcd/server/v3@v$version failed"; }
    (cd "$work" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dir/etcd" go.etcd.io/etcd/server/v3)
    rm -rf "$work"
  fi
}
# Kept in the cache outside the checkout (hack/cache.sh), under the key of its version, Go, and the
# tree's dependencies when it is built with them.
key=$({
  echo "$version $pinned"
  go version
  ! $pinned || cat "$TREE/go.mod" "$TREE/go.sum"
  declare -f build_etcd
} | cache_key)
cached tools "$key" "etcd v$version" build_etcd
