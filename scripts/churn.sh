#!/usr/bin/env bash
# Pod churn with faults on this node (make churn; root, as make e2e-node): the node e2e spec "should
# leak nothing over pod churn while the driver and the kubelet restart" ([Slow]) with CYCLES pods
# created and deleted one at a time, of every kind the resource manager meets: a driver's exclusive
# pod, a driver's shared pod, a Guaranteed pod the static fallback pins, a Burstable and a BestEffort
# pod. The test driver restarts at random cycles, every 25 on average (at least 3 times), half while a
# pod is admitted and half while one runs; the kubelet every 150 (at least once), while a pod runs.
# After each kubelet restart, every 25 cycles and at the end, with no pod running: the CPU manager's
# shared pool is the initial one, and neither it nor the resource manager's store holds an
# allocation. Every running pod's cpuset is its allocation's; every Sync the driver gets after a
# restart is the store. It prints the table: cycles, restarts, rejections, leaks (must be 0), time.
# make test runs the same spec with 50 cycles.
#
# Usage: scripts/churn.sh [-h|--help]
# Environment: CYCLES (default 500: about 55 minutes on 2 CPUs)
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/hack/lib.sh"

case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unexpected argument $1 (see --help; set CYCLES in the environment)" ;;
esac
CYCLES=${CYCLES:-500}
[[ $CYCLES =~ ^[1-9][0-9]*$ ]] || die "CYCLES=$CYCLES: a number of pods, at least 1"

log "churn: $CYCLES pods on this node (about 7 s each, with the restarts)"
output=$(mktemp)
trap 'rm -f "$output"' EXIT
rc=0
FOCUS='should leak nothing over pod churn' E2E_NODE_TEST_ARGS="--resource-manager-churn-cycles=$CYCLES" \
  "$ROOT/scripts/e2e-node.sh" 2> >(tee "$output" >&2) || rc=$?
keep=$(sed -n 's/^==> JUnit report and logs: //p' "$output" | tail -n 1)
if [ -n "$keep" ] && [ -f "$keep/e2e.log" ]; then
  log "churn result ($keep/e2e.log):"
  sed -n '/churn result:/,/^ *$/p' "$keep/e2e.log" | sed '1d; s/^ *//' >&2
  grep 'LEAK ' "$keep/e2e.log" | sed 's/^ *//' | head -n 20 >&2 || true
fi
exit "$rc"
