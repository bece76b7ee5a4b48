#!/usr/bin/env bash
# The demo (make demo): a pod whose CPUs the example resource driver chooses next to a plain pod,
# and a report of who got which CPUs, seen from inside the containers and from the kubelet's pod
# resources API.
#   With a Docker engine: on the patched kind cluster (scripts/kind-up.sh, built offline), with the
#   example driver deployed as a DaemonSet; the pods are created with kubectl apply --server-side
#   from drivers/example/deploy/demo-pods.yaml in namespace demo. make kind-down removes the cluster.
#   Without one: on this machine (root), the patched kubelet with a private containerd and the
#   example driver as a host process (e2e-node/run-kubelet-smoke.sh), cleaned up afterwards.
#
# Usage: scripts/demo.sh [-h|--help] [--local]
#   --local   the local-node demo even when Docker is there
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
local_demo=false
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --local) local_demo=true ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
if ! $local_demo && ! docker_available; then
  log "no Docker engine: the demo runs on this machine's own node"
  local_demo=true
fi

if $local_demo; then
  [ "$(id -u)" = 0 ] || die "the local demo runs a kubelet and containerd: run it as root"
  "$ROOT/hack/tree.sh"
  "$ROOT/hack/build.sh" kubelet
  "$ROOT/scripts/driver-image.sh" >/dev/null
  log "the patched kubelet, standalone, with a private containerd and the example driver on the host"
  exec "$ROOT/e2e-node/run-kubelet-smoke.sh" --report rm-driver rm-shared
fi

"$ROOT/scripts/kind-up.sh"
kubectl_() { "$BIN/kubectl" --kubeconfig "$KIND_KUBECONFIG" "$@"; }
log "creating the demo pods (kubectl apply --server-side -f drivers/example/deploy/demo-pods.yaml)"
kubectl_ create namespace demo --dry-run=client -o yaml | kubectl_ apply -f - >/dev/null
kubectl_ -n demo delete pod pinned plain --ignore-not-found --wait >/dev/null
kubectl_ -n demo apply --server-side -f "$ROOT/drivers/example/deploy/demo-pods.yaml" | sed 's/^/    /' >&2
kubectl_ -n demo wait --for=condition=Ready pod/pinned pod/plain --timeout=180s >/dev/null

node=$(kubectl_ -n demo get pod pinned -o jsonpath='{.spec.nodeName}')
lister=$(project_tool podresources)
docker cp "$lister" "$node:/usr/local/bin/podresources" >/dev/null
echo
echo "Who got which CPUs (node $node, $(docker exec "$node" nproc) CPUs, CPU 0 reserved for the system):"
for pod in pinned plain; do
  driver=$(kubectl_ -n demo get pod "$pod" -o jsonpath='{.spec.resourceDriver}')
  inside=$(kubectl_ -n demo logs "$pod" | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
  printf '  %-7s resourceDriver=%-16s inside the container: Cpus_allowed_list=%s\n' "$pod" "${driver:-(none)}" "$inside"
done
echo "  pod resources API of the kubelet (exclusive CPUs):"
docker exec "$node" /usr/local/bin/podresources -namespace demo | sed 's/^/    /'
echo "  the shared pool (CPU manager state): $(docker exec "$node" cat /var/lib/kubelet/cpu_manager_state |
  sed -n 's/.*"defaultCpuSet":"\([^"]*\)".*/\1/p')"
echo "  the driver's decision (its log):"
kubectl_ -n kube-system logs -l app.kubernetes.io/name=example-resource-driver --tail=-1 |
  grep '"Placed container" .*pod="demo/pinned"' | tail -n 1 | sed 's/.*"Placed container" /    /'
echo
echo "The cluster keeps running: export KUBECONFIG=$KIND_KUBECONFIG; make kind-down removes it."
