#!/usr/bin/env bash
# Smoke test of the patched kind cluster (make test runs it when a Docker engine is present): a
# cluster of its own comes up (scripts/kind-up.sh), the kubelet registers the example driver, a pod
# naming the driver runs on exactly the CPUs the driver chose (read inside the container, in the
# pod resources API and in the kubelet's log), and the cluster goes down again, also on failure.
#
# Usage: scripts/kind-smoke.sh [-h|--help]
#
# Environment: KIND_CLUSTER (default pluggable-rm-smoke: never the cluster of make kind-up).
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
export KIND_CLUSTER=${KIND_CLUSTER:-pluggable-rm-smoke}
export KIND_KUBECONFIG=$ROOT/_output/kind/kubeconfig-$KIND_CLUSTER
. "$ROOT/hack/kind/lib.sh"
need_docker
trap '"$ROOT/scripts/kind-down.sh"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$ROOT/scripts/kind-up.sh"
kubectl_() { "$BIN/kubectl" --kubeconfig "$KIND_KUBECONFIG" "$@"; }
log "a pod naming cpu.example.com (kubectl apply --server-side)"
kubectl_ create namespace smoke >/dev/null
kubectl_ -n smoke apply --server-side -f "$ROOT/drivers/example/deploy/demo-pods.yaml" >/dev/null
kubectl_ -n smoke wait --for=condition=Ready pod/pinned pod/plain --timeout=180s >/dev/null
[ "$(kubectl_ -n smoke get pod pinned -o jsonpath='{.spec.resourceDriver}')" = cpu.example.com ] ||
  die "the API server dropped spec.resourceDriver: is the gate on?"

node=$(kubectl_ -n smoke get pod pinned -o jsonpath='{.spec.nodeName}')
uid=$(kubectl_ -n smoke get pod pinned -o jsonpath='{.metadata.uid}')
placed=$(kubectl_ -n kube-system logs -l app.kubernetes.io/name=example-resource-driver --tail=-1 |
  grep '"Placed container" .*pod="smoke/pinned"' | sed -n 's/.* cpus="\([^"]*\)" exclusive=\(true\|false\).*/\1 \2/p' | tail -n 1)
[ -n "$placed" ] || die "the example driver logged no placement of smoke/pinned (kubectl -n kube-system logs -l app.kubernetes.io/name=example-resource-driver)"
read -r driver_cpus exclusive <<<"$placed"
inside=$(kubectl_ -n smoke logs pinned | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
plain=$(kubectl_ -n smoke logs plain | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
docker cp "$(project_tool podresources)" "$node:/usr/local/bin/podresources" >/dev/null
api=$(docker exec "$node" /usr/local/bin/podresources -namespace smoke | sed -n 's|^smoke/pinned/app cpus=\([^ ]*\) .*|\1|p')
info "driver chose cpus=$driver_cpus exclusive=$exclusive for pod $uid; inside: $inside; pod resources API: $api; plain pod: $plain"
fail=0
[ "$inside" = "$driver_cpus" ] || { warn "the container runs on $inside, the driver chose $driver_cpus"; fail=1; }
[ "$api" = "$driver_cpus" ] || { warn "the pod resources API lists $api, the driver chose $driver_cpus"; fail=1; }
[ "$exclusive" = true ] || { warn "the example driver's answer for an exclusive pod was not exclusive"; fail=1; }
# expand LIST: the CPUs of a cpuset list ("0-2,5"), one per line.
expand() {
  local part
  for part in ${1//,/ }; do seq "${part%-*}" "${part#*-}"; done
}
shared=$(comm -12 <(expand "$plain" | sort) <(expand "$driver_cpus" | sort))
[ -z "$shared" ] || { warn "the plain pod ($plain) runs on the exclusive CPU(s) $shared"; fail=1; }
[ "$fail" = 0 ] || die "kind smoke test failed"
log "kind smoke test passed: the pod runs on the driver's CPU $driver_cpus, the plain pod on $plain"
