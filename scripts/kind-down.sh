#!/usr/bin/env bash
# Removes the kind cluster of scripts/kind-up.sh (make kind-down): its node containers and their
# volumes, the kind network when kind-up created it and nothing else uses it, the kubeconfig, and
# it puts back the host sysctls the node's kubelet changed.
# The base and node images stay (they are build caches, reused by the next make kind-up);
# `docker rmi` them to free the space.
#
# Usage: scripts/kind-down.sh [-h|--help]
#
# Environment: KIND_CLUSTER (default pluggable-rm)
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
need_docker
log "deleting kind cluster $KIND_CLUSTER"
kind_run delete cluster --name "$KIND_CLUSTER" 2>&1 | sed 's/^/    /' >&2
left=$(docker ps -aq --filter "label=io.x-k8s.kind.cluster=$KIND_CLUSTER")
[ -z "$left" ] || { docker rm -f -v $left >/dev/null; info "removed leftover node containers"; }
if [ -f "$KIND_OUT/created-network" ] && docker network inspect kind >/dev/null 2>&1; then
  if [ -z "$(docker network inspect kind -f '{{range .Containers}}{{.Name}} {{end}}')" ]; then
    docker network rm kind >/dev/null && info "removed the docker network kind"
    rm -f "$KIND_OUT/created-network"
  else
    info "the docker network kind is still in use: left in place"
  fi
fi
restore_sysctls "$KIND_OUT/sysctls-$KIND_CLUSTER"
rm -f "$KIND_OUT/sysctls-$KIND_CLUSTER"
rm -f "$KIND_KUBECONFIG" "$KIND_OUT/cluster.yaml"
