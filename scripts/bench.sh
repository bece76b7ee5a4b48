#!/usr/bin/env bash
# What the feature costs, as ratios measured in one run on this machine (make bench; root for the
# pod start part, as make e2e-node). Absolute times on a shared 2-CPU machine vary from run to run;
# ratios between figures measured side by side do not, much.
#
# - Admission (Go benchmark BenchmarkAdmission of pkg/kubelet/cm/resourcemanager, COUNT runs of its
#   four parts in turn, the median of each): one container with one exclusive CPU admitted by a
#   driver under the resource-management policy (the driver's Admit over its unix socket, validation,
#   the store's reservation, the CPU manager's allocation); the same pod under the static policy; the
#   same Admit round trip to the same driver alone, in a tight loop and after each static admission.
#   Target: resource-management <= 1.2 x (static, then one round trip).
# - Pod start (node e2e spec "should start a driver's pod about as fast as the static policy starts
#   it", [Benchmark]): PODS pods of each kind, one at a time, from creation to the start of their
#   container: a Guaranteed pod of a driver under resource-management, the same pod without a driver
#   under static (gate off), a BestEffort pod with the feature gate on and off (policy none). Each
#   kind in 3 rounds, in a rotated order. Targets (p50): driver pod / static pod <= 1.05, gate on /
#   gate off <= 1.02.
#
# Prints one table: each ratio, its target, and whether it met it. Exits 0 when the measurements ran,
# whatever the ratios (a benchmark reports, it does not judge a noisy machine); 1 when one failed.
#
# Usage: scripts/bench.sh [-h|--help]
# Environment: COUNT (default 5), PODS (per kind, default 30: about 8 minutes; 60: about 14),
#              ONLY=admission|pod-start (default both)
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/hack/lib.sh"

case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unexpected argument $1 (see --help; set COUNT, PODS, ONLY in the environment)" ;;
esac
COUNT=${COUNT:-5}
PODS=${PODS:-30}
ONLY=${ONLY:-}
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || die "COUNT=$COUNT: a number of benchmark runs, at least 1"
[[ $PODS =~ ^[1-9][0-9]*$ ]] && [ "$PODS" -ge 3 ] || die "PODS=$PODS: pods per kind, at least 3 (one per round)"
case $ONLY in '' | admission | pod-start) ;; *) die "ONLY=$ONLY: admission or pod-start (or unset for both)" ;; esac
[ "$ONLY" = admission ] || [ "$(id -u)" = 0 ] || die "the pod start part runs a kubelet: run as root (or ONLY=admission)"

"$ROOT/hack/tree.sh"
out=$ROOT/_output/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
rows=()
# row NAME VALUE TARGET: a line of the table; TARGET is a maximum, or - for none.
row() {
  local verdict=- target=-
  if [ "$3" != - ]; then
    target="≤ $3"
    verdict=$(awk -v v="$2" -v t="$3" 'BEGIN { print (v <= t) ? "met" : "NOT met" }')
  fi
  rows+=("| $1 | $2 | $target | $verdict |")
}

failed=0
if [ "$ONLY" != pod-start ]; then
  log "admission: BenchmarkAdmission, $COUNT runs (the test binary builds first: minutes when cold)"
  if (cd "$TREE" && GOFLAGS="${GOFLAGS:-} -trimpath" go test -run '^$' -bench '^BenchmarkAdmission$' \
    -count "$COUNT" ./pkg/kubelet/cm/resourcemanager/) >"$out/admission.txt" 2>&1; then
    # The median ns/op of a part (an extended regexp).
    median() {
      grep -E "^BenchmarkAdmission/$1(-[0-9]+)? " "$out/admission.txt" | awk '{ print $3 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
    }
    rpc=$(median round-trip) static=$(median static) both=$(median 'static\+round-trip')
    rm=$(median resource-management)
    [ -n "$rpc" ] && [ -n "$static" ] && [ -n "$both" ] && [ -n "$rm" ] || die "no benchmark figures in $out/admission.txt"
    info "admission medians (ns): round trip $rpc, static $static, static then round trip $both, resource-management $rm"
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
    row "admission: resource-management / (static, then one round trip)" "$(ratio "$rm" "$both")" 1.2
    row "admission: resource-management / (static + round trip in a tight loop)" "$(ratio "$rm" "$(awk -v a="$static" -v b="$rpc" 'BEGIN { print a + b }')")" -
    row "admission: resource-management / static" "$(ratio "$rm" "$static")" -
    row "admission: round trip in a tight loop / static" "$(ratio "$rpc" "$static")" -
  else
    warn "the admission benchmark failed; its output:"
    tail -n 30 "$out/admission.txt" >&2
    failed=1
  fi
fi

if [ "$ONLY" != admission ]; then
  log "pod start: $PODS pods of each of 4 kinds, one at a time, with a kubelet restart per kind and round"
  rc=0
  FOCUS='should start a driver.s pod about as fast as the static policy' SKIP= \
    E2E_NODE_TEST_ARGS="--resource-manager-latency-pods=$PODS" \
    "$ROOT/scripts/e2e-node.sh" 2> >(tee "$out/pod-start.log" >&2) || rc=$?
  keep=$(sed -n 's/^==> JUnit report and logs: //p' "$out/pod-start.log" | tail -n 1)
  if [ "$rc" = 0 ] && [ -n "$keep" ] && [ -f "$keep/e2e.log" ]; then
    # The spec's two tables, after its line "RESULT pod-start-latency".
    awk '/RESULT pod-start-latency/ { on = 1; next } on && /^ *(\||$)/ { sub(/^ */, ""); print; next } on { exit }' \
      "$keep/e2e.log" >"$out/pod-start.txt"
    # ratio NUMERATOR: the p50 and p90 of the ratio row whose numerator starts with it.
    ratio_of() { awk -F' *\\| *' -v k="$1" '$2 ~ "^" k && $2 ~ " / " { print $3, $4; exit }' "$out/pod-start.txt"; }
    read -r driver_p50 driver_p90 < <(ratio_of "guaranteed pod, its driver")
    read -r gate_p50 gate_p90 < <(ratio_of "BestEffort pod \\(none, gate on\\)")
    [ -n "${driver_p50:-}" ] && [ -n "${gate_p50:-}" ] || die "no pod start ratios in $keep/e2e.log"
    row "pod start p50: driver's pod (resource-management) / same pod (static)" "$driver_p50" 1.05
    row "pod start p90: driver's pod (resource-management) / same pod (static)" "$driver_p90" -
    row "pod start p50: BestEffort pod, gate on / gate off" "$gate_p50" 1.02
    row "pod start p90: BestEffort pod, gate on / gate off" "$gate_p90" -
  else
    warn "the pod start benchmark failed (exit $rc); its log: ${keep:-none}"
    failed=1
  fi
fi

{
  echo "| ratio (measured in this run) | value | target | |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  [ ! -s "$out/pod-start.txt" ] || { echo; cat "$out/pod-start.txt"; }
} | tee "$out/table.md"
log "bench: figures in $out (admission.txt, pod-start.txt, table.md)"
exit "$failed"
