#!/usr/bin/env bash
# What the feature costs, as ratios measured in one run on this machine (make bench; root for the
# pod start part, as make e2e-node). Absolute times on a shared 2-CPU machine vary from run to run;
# ratios between figures measured side by side do not, much.
#
# - Admission (Go benchmark BenchmarkAdmission of pkg/kubelet/cm/resourcemanager, in COUNT rounds,
#   each a run of the test binary with its own driver process): one container with one exclusive
#   CPU admitted by a driver under the resource-management policy (the driver's Admit over its unix
#   socket, validation, the store's reservation, the CPU manager's allocation); the same pod under
#   the static policy; the same Admit round trip to the same driver alone; the round trip and the
#   static admission one after the other, as resource-management makes them. Ratios are taken in
#   each round; the table gives their median and range. Target: resource-management <= 1.2 x
#   (static + one round trip), the two made one after the other. Each costs more right after the
#   other than in a tight loop of its own, with or without resource management: the table shows by
#   how much.
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
# Environment: COUNT (admission rounds, default 7: about 7 s each),
#              PODS (per kind, default 30: about 8 minutes; 60: about 14),
#              ONLY=admission|pod-start (default both)
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/hack/lib.sh"

case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unexpected argument $1 (see --help; set COUNT, PODS, ONLY in the environment)" ;;
esac
COUNT=${COUNT:-7}
PODS=${PODS:-30}
ONLY=${ONLY:-}
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || die "COUNT=$COUNT: a number of admission benchmark rounds, at least 1"
[[ $PODS =~ ^[1-9][0-9]*$ ]] && [ "$PODS" -ge 3 ] || die "PODS=$PODS: pods per kind, at least 3 (one per round)"
case $ONLY in '' | admission | pod-start) ;; *) die "ONLY=$ONLY: admission or pod-start (or unset for both)" ;; esac
[ "$ONLY" = admission ] || [ "$(id -u)" = 0 ] || die "the pod start part runs a kubelet: run as root (or ONLY=admission)"

"$ROOT/hack/tree.sh"
out=$ROOT/_output/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
rows=()
# row NAME VALUE TARGET [SHOWN]: a line of the table; TARGET is a maximum, or - for none; SHOWN is
# what the value column shows (VALUE by default).
row() {
  local verdict=- target=-
  if [ "$3" != - ]; then
    target="≤ $3"
    verdict=$(awk -v v="$2" -v t="$3" 'BEGIN { print (v <= t) ? "met" : "NOT met" }')
  fi
  rows+=("| $1 | ${4:-$2} | $target | $verdict |")
}

failed=0
if [ "$ONLY" != pod-start ]; then
  log "admission: building the benchmark's test binary (minutes when cold)"
  bin=$out/resourcemanager.test
  if ! (cd "$TREE" && GOFLAGS="${GOFLAGS:-} -trimpath" go test -c -o "$bin" ./pkg/kubelet/cm/resourcemanager/) >"$out/admission.txt" 2>&1; then
    warn "the admission benchmark did not build; its output:"
    tail -n 30 "$out/admission.txt" >&2
    failed=1
  else
    for round in $(seq "$COUNT"); do
      log "admission: round $round of $COUNT (BenchmarkAdmission, its four parts)"
      if ! (cd "$TREE/pkg/kubelet/cm/resourcemanager" && "$bin" -test.run '^$' -test.bench '^BenchmarkAdmission$') >>"$out/admission.txt" 2>&1; then
        warn "the admission benchmark failed in round $round; its output:"
        tail -n 30 "$out/admission.txt" >&2
        failed=1
        break
      fi
    done
  fi
  if [ "$failed" = 0 ]; then
    # Per round (the k-th line of each part): the figures, in ns, of one run
    # of the four parts. VALUE UNIT pairs follow a line's iteration count.
    awk '
      /^BenchmarkAdmission\// {
        part = $1; sub(/^BenchmarkAdmission\//, "", part); sub(/-[0-9]+$/, "", part)
        k = ++seen[part]
        for (i = 3; i < NF; i += 2) v[k, part, $(i + 1)] = $i
        rounds = (k > rounds) ? k : rounds
      }
      END {
        for (k = 1; k <= rounds; k++)
          print v[k, "round-trip", "ns/op"], v[k, "static", "ns/op"], v[k, "static+round-trip", "ns/op"],
            v[k, "static+round-trip", "round-trip-ns/op"], v[k, "static+round-trip", "static-ns/op"],
            v[k, "resource-management", "ns/op"]
      }' "$out/admission.txt" >"$out/admission-rounds.txt"
    [ "$(awk 'NF == 6' "$out/admission-rounds.txt" | wc -l)" = "$COUNT" ] ||
      die "not $COUNT complete rounds of figures in $out/admission.txt"
    # stat EXPR: the median of an awk expression over the rounds' fields
    # (rpc static both rpc_after static_after rm), and their range.
    stat() {
      awk '{ rpc = $1; static = $2; both = $3; rpc_after = $4; static_after = $5; rm = $6; print '"$1"' }' \
        "$out/admission-rounds.txt" | sort -g |
        awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
    }
    # stat_row NAME EXPR TARGET
    stat_row() {
      local median low high
      read -r median low high < <(stat "$2")
      row "$1" "$median" "$3" "$median ($low to $high)"
    }
    median_us() { stat "$1 / 1000" | awk '{ printf "%.0f", $1 }'; }
    info "admission medians over $COUNT rounds (µs): round trip $(median_us rpc), static $(median_us static)," \
      "the two one after the other $(median_us both) (round trip $(median_us rpc_after), static $(median_us static_after))," \
      "resource-management $(median_us rm)"
    stat_row "admission: resource-management / (round trip and static, one after the other)" 'rm / both' 1.2
    stat_row "admission: resource-management / (round trip + static, each in a tight loop)" 'rm / (rpc + static)' -
    stat_row "admission: (round trip and static, one after the other) / (each in a tight loop)" 'both / (rpc + static)' -
    stat_row "admission: static right after a round trip / in a tight loop" 'static_after / static' -
    stat_row "admission: round trip right after a static admission / in a tight loop" 'rpc_after / rpc' -
    stat_row "admission: resource-management / static" 'rm / static' -
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
