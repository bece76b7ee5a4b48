#!/usr/bin/env bash
# Builds patched Kubernetes binaries from the assembled tree into _output/bin/.
#
# Usage: hack/build.sh [TARGET...]        (default: kubelet kube-apiserver)
#
# Targets: kubelet kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl kubeadm
#          e2e_node.test e2e.test resource-test-driver (the node e2e tests' resource driver, as a command)
#
# The version is the upstream release plus the number of patches, e.g. v1.37.2-rm.3, with the tree's
# commit id; `BINARY --version` shows it. A binary whose sources, flags and Go did not change since
# its last build on this machine is not rebuilt (applying the same series gives the same commit ids):
# it is kept in the cache outside the checkout (hack/cache.sh). Heavy: builds run one at a time,
# using the Go build cache.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kubelet kube-apiserver)

[ -d "$TREE/.git" ] || die "no tree at $TREE: run make tree first"

# package TARGET: the Go package a target is built from.
package_of() {
  case $1 in
  kubelet | kube-apiserver | kube-controller-manager | kube-scheduler | kube-proxy | kubectl | kubeadm) echo "./cmd/$1" ;;
  e2e_node.test) echo "./test/e2e_node" ;;
  e2e.test) echo "./test/e2e" ;;
  resource-test-driver) echo "./test/e2e_node/resourcedriver/resource-test-driver" ;;
  *) die "unknown target $1 (see --help)" ;;
  esac
}
for t in "${targets[@]}"; do package_of "$t" >/dev/null; done

patches=$(tgit rev-list --count upstream..HEAD)
version="$KUBE_VERSION-rm.$patches"
commit=$(tgit rev-parse HEAD)
tree_state=clean
[ -z "$(tgit status --porcelain --untracked-files=no)" ] || tree_state=dirty
[ $tree_state = clean ] || version="$version-dirty"
major=$(echo "$KUBE_VERSION" | sed -E 's/^v([0-9]+)\..*/\1/')
minor=$(echo "$KUBE_VERSION" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
# The date of the newest commit, not of the build: the same sources give the same binary.
build_date=$(tgit log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD)
ldflags=""
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X '$pkg.gitVersion=$version' -X '$pkg.gitCommit=$commit' -X '$pkg.gitTreeState=$tree_state'"
  ldflags+=" -X '$pkg.buildDate=$build_date' -X '$pkg.gitMajor=$major' -X '$pkg.gitMinor=$minor'"
done
# As upstream's hack/lib/golang.sh: these tags, cgo only for the kubelet and test binaries, and
# -trimpath (which also lets the Go build cache of one checkout serve another: CI clones anew).
# Tests are not built with -trimpath: upstream's integration framework locates files by source path.
tags=selinux,notest,grpcnotrace

# build_binary DIR: builds target $t into DIR/$t (the cache's build function).
build_binary() {
  local dir=$1 cgo=0 start
  case $t in kubelet | e2e_node.test | e2e.test | resource-test-driver) cgo=1 ;; esac
  log "building $t $version (cold: several minutes on 2 cores; cached parts are reused)"
  start=$(date +%s)
  if [[ $t = *.test ]]; then
    (cd "$TREE" && CGO_ENABLED=$cgo go test -c -trimpath -o "$dir/$t" -tags "$tags" -ldflags "$ldflags" "$(package_of "$t")")
  else
    (cd "$TREE" && CGO_ENABLED=$cgo go build -trimpath -o "$dir/$t" -tags "$tags" -ldflags "$ldflags" "$(package_of "$t")")
  fi
  info "built $t in $(($(date +%s) - start))s"
}

# What a binary depends on, as a fingerprint: sources (commit plus any uncommitted edits), flags, Go
# and how it is built. Files not yet added to git count too.
source_id=$({
  echo "$commit"
  tgit diff --binary HEAD
  (cd "$TREE" && git ls-files -z --others --exclude-standard | xargs -0 -r sha256sum)
  go version
  (cd "$TREE" && go env GOFLAGS GOEXPERIMENT GOAMD64 CC CGO_CFLAGS CGO_LDFLAGS)
  echo "$ldflags $tags"
  declare -f build_binary package_of
} | sha256sum | cut -c1-16)

# Each binary is built once per source and flags on this machine: the cache outside the checkout
# (hack/cache.sh) keeps it under the key of its sources, flags and Go, and every checkout copies it.
mkdir -p "$BIN/.stamps"
for t in "${targets[@]}"; do
  out=$BIN/$t stamp=$BIN/.stamps/$t
  if [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$source_id" ]; then
    log "$t $version is up to date"
    continue
  fi
  key=$(echo "$source_id $t" | cache_key)
  entry=$(cached bin "$key" "$t $version" build_binary)
  rm -f "$stamp" "$out"
  cp "$entry/$t" "$out.tmp.$$"
  mv "$out.tmp.$$" "$out"
  echo "$source_id" >"$stamp"
done

for t in "${targets[@]}"; do
  [[ $t != *.test && $t != resource-test-driver ]] || continue
  info "$("$BIN/$t" --version 2>/dev/null | head -n 1) ($BIN/$t)"
done
