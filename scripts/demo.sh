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
# Usage: scripts/demo.sh [-h|--help] [--local | --check]
#   --local   the local-node demo even when Docker is there
#   --check   on kind: also check the report (the driver's CPUs, the same inside the container and in
#             the pod resources API, exclusive, and none of them in the plain pod's set) and fail
#             when it is wrong; scripts/kind-smoke.sh runs this on a cluster of its own
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
local_demo=false
check=false
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --local) local_demo=true ;;
  --check) check=true; need_docker ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
if ! $local_demo && ! $check && ! docker_available; then
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
[ "$(kubectl_ -n demo get pod pinned -o jsonpath='{.spec.resourceDriver}')" = cpu.example.com ] ||
  die "the API server dropped spec.resourceDriver: is the PluggableResourceManagement gate on?"
lister=$(project_tool podresources)
docker cp "$lister" "$node:/usr/local/bin/podresources" >/dev/null
cpus_of() { kubectl_ -n demo logs "$1" | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p'; }
inside=$(cpus_of pinned)
plain=$(cpus_of plain)
api=$(docker exec "$node" /usr/local/bin/podresources -namespace demo)
decision=$(kubectl_ -n kube-system logs -l app.kubernetes.io/name=example-resource-driver --tail=-1 |
  grep '"Placed container" .*pod="demo/pinned"' | tail -n 1 || true)
echo
echo "Who got which CPUs (node $node, $(docker exec "$node" nproc) CPUs, CPU 0 reserved for the system):"
echo "  pinned  resourceDriver=cpu.example.com  inside the container: Cpus_allowed_list=$inside"
echo "  plain   resourceDriver=(none)           inside the container: Cpus_allowed_list=$plain"
echo "  pod resources API of the kubelet (exclusive CPUs):"
sed 's/^/    /' <<<"$api"
echo "  the shared pool (CPU manager state): $(docker exec "$node" cat /var/lib/kubelet/cpu_manager_state |
  sed -n 's/.*"defaultCpuSet":"\([^"]*\)".*/\1/p')"
echo "  the driver's decision (its log):"
echo "    ${decision#*\"Placed container\" }"
echo

if $check; then
  read -r driver_cpus exclusive < <(sed -n 's/.* cpus="\([^"]*\)" exclusive=\(true\|false\).*/\1 \2/p' <<<"$decision")
  [ -n "${driver_cpus:-}" ] || die "the example driver logged no placement of demo/pinned (kubectl -n kube-system logs -l app.kubernetes.io/name=example-resource-driver)"
  api_cpus=$(sed -n 's|^demo/pinned/app cpus=\([^ ]*\) .*|\1|p' <<<"$api")
  # expand LIST: the CPUs of a cpuset list ("0-2,5"), one per line.
  expand() {
    local part
    for part in ${1//,/ }; do seq "${part%-*}" "${part#*-}"; done
  }
  fail=0
  [ "$inside" = "$driver_cpus" ] || { warn "the container runs on $inside, the driver chose $driver_cpus"; fail=1; }
  [ "$api_cpus" = "$driver_cpus" ] || { warn "the pod resources API lists ${api_cpus:-nothing}, the driver chose $driver_cpus"; fail=1; }
  [ "$exclusive" = true ] || { warn "the example driver's answer for an exclusive pod was not exclusive"; fail=1; }
  shared=$(comm -12 <(expand "$plain" | sort) <(expand "$driver_cpus" | sort))
  [ -z "$shared" ] || { warn "the plain pod ($plain) runs on the exclusive CPU(s) $shared"; fail=1; }
  [ "$fail" = 0 ] || die "the demo's check failed"
  log "check passed: the pod runs on the driver's CPU $driver_cpus, the plain pod on $plain"
  exit 0
fi
echo "The cluster keeps running: export KUBECONFIG=$KIND_KUBECONFIG; make kind-down removes it."
