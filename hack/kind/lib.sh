# shellcheck shell=bash
# Settings and helpers of the kind scripts (scripts/kind-*.sh, hack/kind/*). Source it after
# hack/lib.sh.
#
# A kind cluster of the patched build, offline: kind's node image is built from a release tarball
# of our binaries and images (kind build node-image), on a base image made from Debian packages and
# kind's own base-image files, taken from the sigs.k8s.io/kind module at build time.

KIND_VERSION=${KIND_VERSION:-v0.33.0}          # sigs.k8s.io/kind: the release for Kubernetes 1.37
CRICTL_VERSION=${CRICTL_VERSION:-v1.37.0}      # sigs.k8s.io/cri-tools: kind load / export logs use it
KIND_OUT=${KIND_OUT:-$ROOT/_output/kind}
KIND_BIN=$KIND_OUT/bin
KIND_CLUSTER=${KIND_CLUSTER:-pluggable-rm}
KIND_KUBECONFIG=${KIND_KUBECONFIG:-$KIND_OUT/kubeconfig}
BASE_IMAGE_REPO=localhost/pluggable-rm/kind-base
NODE_IMAGE_REPO=localhost/pluggable-rm/kind-node
DRIVER_IMAGE=${DRIVER_IMAGE:-localhost/pluggable-rm/example-driver:dev}

kind_src() { printf '%s\n' "$(go env GOMODCACHE)/sigs.k8s.io/kind@$KIND_VERSION"; }

# go_tool NAME MODULE@VERSION [PACKAGE]: installs a Go command into $KIND_BIN once.
go_tool() {
  local name=$1 module=$2 pkg=${3:-${2%@*}} key entry
  if [ ! -x "$KIND_BIN/$name" ]; then
    # Built once per machine: kept in the cache outside the checkout (hack/cache.sh), keyed by the
    # module version and Go.
    key=$({ echo "$name $pkg@${module##*@}"; go version; declare -f build_go_tool; } | cache_key)
    entry=$(GO_TOOL_NAME=$name GO_TOOL_PKG="$pkg@${module##*@}" cached tools "$key" "$name ($pkg@${module##*@})" build_go_tool)
    mkdir -p "$KIND_BIN"
    cp "$entry/$name" "$KIND_BIN/$name.tmp.$$"
    mv "$KIND_BIN/$name.tmp.$$" "$KIND_BIN/$name"
  fi
  printf '%s\n' "$KIND_BIN/$name"
}
build_go_tool() {
  info "installing $GO_TOOL_NAME ($GO_TOOL_PKG)"
  GOBIN=$1 CGO_ENABLED=0 go install -trimpath "$GO_TOOL_PKG" || die "go install $GO_TOOL_PKG failed"
  [ -x "$1/$GO_TOOL_NAME" ] || die "go install $GO_TOOL_PKG made no $GO_TOOL_NAME"
}

kind_cmd() { go_tool kind "sigs.k8s.io/kind@$KIND_VERSION"; }
crictl_cmd() { go_tool crictl "sigs.k8s.io/cri-tools@$CRICTL_VERSION" sigs.k8s.io/cri-tools/cmd/crictl; }

# kubeadm_constant NAME: a constant of the tree's kubeadm (the images it expects).
kubeadm_constant() {
  sed -n "s/^[[:space:]]*$1 = \"\(.*\)\"$/\1/p" "$TREE/cmd/kubeadm/app/constants/constants.go" | sed -n 1p
}

# docker_available: a Docker engine answers here.
docker_available() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }

need_docker() {
  command -v docker >/dev/null || die "docker is not installed: the kind cluster needs a Docker engine (make demo without Docker uses the local node instead)"
  docker info >/dev/null 2>&1 || die "the Docker engine does not answer (docker info failed): start it, or check the permissions on its socket"
}

# needs_docker_shim IMAGE: succeeds when `docker run --privileged` fails on this host (its
# capability bounding set lacks CAP_SYS_RESOURCE: "unable to apply caps"), so kind runs through
# hack/kind/docker-shim, which grants every other capability instead.
needs_docker_shim() {
  local out
  out=$(docker run --rm --privileged --entrypoint /bin/true "$1" 2>&1) && return 1
  case $out in *"apply caps"*) return 0 ;; esac
  die "docker run --privileged $1 failed: $out"
}

# decide_docker_shim IMAGE: records whether kind must run through the docker shim on this host.
decide_docker_shim() {
  mkdir -p "$KIND_OUT"
  if needs_docker_shim "$1"; then
    [ -f "$KIND_OUT/use-docker-shim" ] ||
      info "this host refuses docker run --privileged (no CAP_SYS_RESOURCE): kind runs through hack/kind/docker-shim"
    touch "$KIND_OUT/use-docker-shim"
  else
    rm -f "$KIND_OUT/use-docker-shim"
  fi
}

# kind_run ARGS...: kind, through the docker shim when this host needs it.
kind_run() {
  local kind
  kind=$(kind_cmd)
  if [ -f "$KIND_OUT/use-docker-shim" ]; then
    PATH=$ROOT/hack/kind/docker-shim:$PATH "$kind" "$@"
  else
    "$kind" "$@"
  fi
}

# oom_score_adj_restricted: this host refuses a negative oom_score_adj (no CAP_SYS_RESOURCE), so
# containerd in the nodes needs restrict_oom_score_adj (else runc fails every pod sandbox).
oom_score_adj_restricted() { ! (echo -999 >/proc/self/oom_score_adj) 2>/dev/null; }

cgroup_v1() { [ ! -f /sys/fs/cgroup/cgroup.controllers ]; }
