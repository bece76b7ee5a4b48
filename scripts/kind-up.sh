#!/usr/bin/env bash
# Brings up a kind cluster of the patched build (make kind-up): the node image of
# scripts/kind-image.sh (built offline), the PluggableResourceManagement gate on every component,
# the kubelet's resource-management CPU manager policy with CPU 0 reserved, a bridge CNI on every
# node, and the example driver as a DaemonSet, registered with every kubelet. Idempotent: a running
# cluster of the same name is reused.
#
# Usage: scripts/kind-up.sh [-h|--help]
#
# Environment:
#   KIND_CONFIG   the cluster config (default kind-config/control-plane-worker.yaml: the worker
#                 has a whole allocatable CPU for a pod with an exclusive CPU; also
#                 kind-config/single-node.yaml, where the control plane's requests leave less)
#   KIND_CLUSTER  the cluster name (default pluggable-rm)
#
# Then: export KUBECONFIG=_output/kind/kubeconfig; kubectl get nodes. make kind-down removes it.
# Host-specific settings are added only where this host needs them: failCgroupV1: false on cgroup
# v1, containerd's restrict_oom_score_adj where a negative oom_score_adj is refused, and the docker
# shim of hack/kind/docker-shim where docker run --privileged is refused.
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
KIND_CONFIG=${KIND_CONFIG:-$ROOT/kind-config/control-plane-worker.yaml}
[ -f "$KIND_CONFIG" ] || die "no kind config $KIND_CONFIG"
need_docker
start=$SECONDS

NODE=$("$ROOT/scripts/kind-image.sh")
decide_docker_shim "$NODE"
KUBECTL=$BIN/kubectl
kubectl_() { "$KUBECTL" --kubeconfig "$KIND_KUBECONFIG" "$@"; }

if kind_run get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  log "kind cluster $KIND_CLUSTER exists: reusing it"
  kind_run get kubeconfig --name "$KIND_CLUSTER" >"$KIND_KUBECONFIG"
else
  cfg=$KIND_OUT/cluster.yaml
  cp "$KIND_CONFIG" "$cfg"
  if cgroup_v1; then
    info "cgroup v1 host: the kubelet gets failCgroupV1: false"
    sed -i 's/^  kind: KubeletConfiguration$/&\n  failCgroupV1: false/' "$cfg"
  fi
  if oom_score_adj_restricted; then
    info "this host refuses a negative oom_score_adj: containerd in the nodes gets restrict_oom_score_adj = true"
    cat >>"$cfg" <<'EOF'
containerdConfigPatches:
- |-
  [plugins."io.containerd.grpc.v1.cri"]
    restrict_oom_score_adj = true
EOF
  fi
  docker network inspect kind >/dev/null 2>&1 || touch "$KIND_OUT/created-network"
  # A node's kubelet sets host sysctls (its /proc/sys is the host's): kind-down puts them back.
  save_sysctls "$KIND_OUT/sysctls-$KIND_CLUSTER"
  log "kind create cluster --name $KIND_CLUSTER --image $NODE --config ${KIND_CONFIG#"$ROOT"/}"
  if ! kind_run create cluster --name "$KIND_CLUSTER" --image "$NODE" --config "$cfg" \
    --kubeconfig "$KIND_KUBECONFIG" 2>&1 | sed 's/^/    /' >&2; then
    die "kind create cluster failed (make kind-down cleans up)"
  fi
fi

# The bridge CNI of each node, on the pod range the controller manager gave it, and routes to the
# other nodes' ranges (what kindnetd would do).
log "pod network: a bridge on every node's pod range"
nodes=$(kubectl_ get nodes -o name | sed 's|^node/||')
for node in $nodes; do
  for _ in $(seq 1 60); do
    cidr=$(kubectl_ get node "$node" -o jsonpath='{.spec.podCIDR}')
    [ -z "$cidr" ] || break
    sleep 1
  done
  [ -n "$cidr" ] || die "node $node got no pod range"
  docker exec -i "$node" sh -c 'mkdir -p /etc/cni/net.d && cat >/etc/cni/net.d/10-bridge.conflist' <<EOF
{
  "cniVersion": "0.4.0",
  "name": "kind-bridge",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "mtu": 1400,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$cidr"}]], "routes": [{"dst": "0.0.0.0/0"}]}
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  for other in $nodes; do
    [ "$other" != "$node" ] || continue
    ocidr=$(kubectl_ get node "$other" -o jsonpath='{.spec.podCIDR}')
    oip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$other")
    docker exec "$node" ip route replace "$ocidr" via "$oip"
  done
  info "$node: $cidr"
done
log "waiting for the nodes to be Ready"
kubectl_ wait --for=condition=Ready node --all --timeout=300s >/dev/null

log "the example driver: kind load image-archive, DaemonSet"
"$ROOT/scripts/kind-driver.sh" "$ROOT/drivers/example" 2>&1 | sed 's/^/    /' >&2
for node in $nodes; do
  # A kubelet without the resource-management policy does not take drivers: it does not declare
  # the feature (kind-config/control-plane-two-workers.yaml has such a control plane).
  features=$(kubectl_ get node "$node" -o jsonpath='{.status.declaredFeatures}')
  if [[ $features != *'"PluggableResourceManagement"'* ]]; then
    info "$node does not declare PluggableResourceManagement (another CPU manager policy): no driver registers there"
    continue
  fi
  registered=false
  for _ in $(seq 1 60); do
    pod=$(kubectl_ -n kube-system get pods -l app.kubernetes.io/name=example-resource-driver \
      --field-selector "spec.nodeName=$node" -o jsonpath='{.items[0].metadata.name}')
    if [ -n "$pod" ] && kubectl_ -n kube-system logs "$pod" 2>/dev/null | grep -q 'Registered with the kubelet'; then
      registered=true
      break
    fi
    sleep 1
  done
  $registered || die "the kubelet of $node did not register the example driver (kubectl -n kube-system logs ${pod:-<driver pod>})"
  info "$node: the kubelet registered cpu.example.com (driver pod $pod)"
done
log "cluster $KIND_CLUSTER is up in $((SECONDS - start))s: export KUBECONFIG=$KIND_KUBECONFIG"
