#!/usr/bin/env bash
# Smoke test of the patched kind cluster, the quick path (make test runs it when a Docker engine is
# present and make e2e-cluster does not run): a cluster of its own comes up (scripts/kind-up.sh),
# the kubelet registers the example driver, the demo runs with its check (scripts/demo.sh --check:
# the pod naming the driver runs on exactly the CPUs the driver chose, inside the container and in
# the pod resources API, and the plain pod keeps off them), and the cluster goes down again, also on
# failure. The cluster e2e specs (make e2e-cluster) cover the rest on two workers.
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

"$ROOT/scripts/demo.sh" --check
log "kind smoke test passed"
