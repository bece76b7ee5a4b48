#!/usr/bin/env bash
# The project's test suite (make test):
#   1. assemble the tree and apply the series (reused when unchanged);
#   2. build the patched kubelet and e2e_node.test (not rebuilt when unchanged);
#   3. start the node e2e suite (scripts/e2e-node.sh: a real kubelet, containerd, runc and cgroups;
#      needs root) in the background. It spends most of its time waiting for pods and kubelet
#      restarts, so the CPU-bound steps 4 and 5 run beside it at nice 19 (it still ran about 1.4
#      times slower beside them here); its output is printed when it ends. test/e2e_node runs
#      there, not under go test: it is a suite that starts services. SKIP_E2E_NODE=1 leaves it out
#      (said at the end); E2E_NODE_ALONE=1 runs it alone after step 5;
#   4. upstream's tests of every package the series adds or changes, plus the packages listed in
#      hack/test-packages.txt (packages the series affects without editing them): unit tests built
#      with -trimpath, like make verify's golangci-lint, so they reuse its compiled packages from
#      Go's build cache; integration tests (test/integration/..., etcd from hack/install-etcd.sh)
#      without it, since upstream's test API server finds its certificates by source path;
#   5. the series' Go fuzz targets, FUZZTIME each (default 100000x; their seed corpora in
#      testdata/fuzz already ran as unit tests in step 4), the project's own Go tests, and the driver
#      sanity suite against the example, minimal and e2e test drivers (scripts/driver-sanity.sh);
#   6. with a Docker engine, the cluster e2e specs (scripts/e2e-cluster.sh: upstream's e2e.test
#      with the series' specs, on a patched kind cluster built offline, a control plane and two
#      workers, the example driver); their node image and e2e.test build beside step 3 at nice 19
#      when it still runs then (else first thing in step 6); SKIP_KIND=1 leaves them out;
#   7. with E2E_NODE_VM=1 (CI sets it), the NUMA and SMT specs in the multi-NUMA qemu guest
#      (scripts/e2e-node-vm.sh, numa2-smt), in the background from the end of step 5: the guest
#      keeps about one core busy emulating and otherwise waits, as the cluster specs wait on their
#      pods, so the two run side by side; its output is printed when it ends.
# make verify (hack/verify.sh) checks the series itself: clean application, exact export, generated code.
#
# Usage: hack/test.sh
#
# Environment: SKIP_E2E_NODE=1 / SKIP_KIND=1 (leave out the node e2e suite / the cluster e2e specs),
# E2E_NODE_ALONE=1 (the node e2e suite after the Go tests, not beside them),
# FUZZTIME (per fuzz target, a go test -fuzztime value: 100000x, 30s; 0 leaves them out),
# FOCUS / SKIP (for the node e2e suite), E2E_NODE_VM=1 (step 7; E2E_NODE_VM_FOCUS, default
# 'Resource Manager.*NUMA', selects its specs)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac

"$ROOT/hack/tree.sh"
if [ "${SKIP_E2E_NODE:-}" = 1 ]; then
  "$ROOT/hack/build.sh" kubelet
else
  "$ROOT/hack/build.sh" kubelet e2e_node.test
fi
step_done "assemble the tree, build the kubelet and e2e_node.test"

# Lanes that mostly wait (for pods, kubelet restarts, an emulated CPU) run in the background beside
# CPU work. Each one's output goes to a log, printed when it ends; whatever fails meanwhile, every
# lane is waited for (each tears down what it started) and shown.
declare -A bg_pid=() bg_log=() bg_started=() bg_epoch=()
bg_start() { # NAME LOG COMMAND...: runs COMMAND in the background, its output in LOG
  local name=$1 out=$2
  shift 2
  mkdir -p "$(dirname "$out")"
  log "$name starts in the background (output: $out, printed when it ends)"
  # The lane's own time, from its start to its end (not to the bg_wait that collects it).
  rm -f "$out.took"
  (
    trap 'echo $((SECONDS - lane_start)) >"$out.took"' EXIT
    lane_start=$SECONDS
    "$@"
  ) >"$out" 2>&1 </dev/null &
  bg_pid[$name]=$! bg_log[$name]=$out bg_started[$name]=$SECONDS bg_epoch[$name]=$(date +%s)
}
bg_running() { [ -n "${bg_pid[$1]:-}" ] && kill -0 "${bg_pid[$1]}" 2>/dev/null; }
bg_wait() { # NAME: waits for the lane and prints its output; fails as it failed
  local name=$1 rc=0
  [ -n "${bg_pid[$name]:-}" ] || return 0
  wait "${bg_pid[$name]}" || rc=$?
  unset "bg_pid[$name]"
  local took
  took=$(cat "${bg_log[$name]}.took" 2>/dev/null) || took=$((SECONDS - ${bg_started[$name]}))
  STEP_TIMES+=("$(step_line "$took" "$name (in the background, from its start to its end)")")
  step_span "${bg_epoch[$name]}" "$((${bg_epoch[$name]} + took))" "${STEP_PREFIX:-}$name (in the background)"
  log "$name, run in the background, ended (exit $rc); its output:"
  cat "${bg_log[$name]}" >&2
  return $rc
}
trap 'for lane in "${!bg_pid[@]}"; do bg_wait "$lane" || true; done; print_step_times "make test: the time of each step"' EXIT

# The node e2e suite, in the background while the Go tests run (see the top of this file).
node_e2e="the node e2e suite"
run_e2e_node() {
  log "$node_e2e (scripts/e2e-node.sh)"
  "$ROOT/scripts/e2e-node.sh"
}
if [ "${SKIP_E2E_NODE:-}" != 1 ] && [ "${E2E_NODE_ALONE:-}" != 1 ]; then
  bg_start "$node_e2e" "$ROOT/_output/e2e/e2e-node.log" run_e2e_node
  nice_go=(nice -n 19)
else
  nice_go=()
fi

# Packages with Go files the series adds or changes, and those of hack/test-packages.txt.
mapfile -t pkgs < <(series_test_dirs)
# Upstream's integration tests (test/integration/...) start etcd from PATH.
etcd_dir=$("$ROOT/hack/install-etcd.sh")
unit=() integration=()
for p in "${pkgs[@]}"; do
  case $p in ./test/integration/*) integration+=("$p") ;; *) unit+=("$p") ;; esac
done
# Where they run: the cached series tree when $TREE is exactly that (hack/lib.sh, test_tree), so
# that every checkout on this machine runs them at one path with the same file times, and Go's test
# cache answers for those whose inputs did not change ("(cached)"); $TREE when it has local work.
test_dir=$(test_tree)
log "upstream unit tests of ${#unit[@]} packages the series touches (in $test_dir)"
printf '    %s\n' "${unit[@]}" >&2
(cd "$test_dir" && GOFLAGS="${GOFLAGS:-} -trimpath" "${nice_go[@]}" go test "${unit[@]}")
if [ ${#integration[@]} -gt 0 ]; then
  log "upstream integration tests of ${#integration[@]} packages the series touches"
  printf '    %s\n' "${integration[@]}" >&2
  (cd "$test_dir" && PATH="$etcd_dir:$PATH" "${nice_go[@]}" go test "${integration[@]}")
fi
step_done "upstream unit and integration tests"

# The fuzz targets the series adds: "dir FuzzName" lines, from the Go test files it adds or changes.
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can fail a target with a bare
# "context deadline exceeded" when its workers are slow to stop at the deadline on busy cores
# (go.dev/issue/75804, fixed in Go 1.27). 100000 inputs take 8 to 40 s per target here.
FUZZTIME=${FUZZTIME:-100000x}
mapfile -t fuzzers < <(series_fuzz_targets)
if [ "$FUZZTIME" = 0 ]; then
  log "the ${#fuzzers[@]} fuzz targets of the series are left out (FUZZTIME=0)"
else
  log "the ${#fuzzers[@]} fuzz targets of the series, $FUZZTIME each"
  for target in "${fuzzers[@]}"; do
    read -r dir name <<<"$target"
    info "$name ($dir)"
    # A failing input is written to the package's testdata/fuzz: it stays in the tree for a look.
    (cd "$TREE" && "${nice_go[@]}" go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$dir")
  done
  step_done "fuzz targets"
fi

log "the project's own tests"
(cd "$ROOT" && "${nice_go[@]}" go test ./...)
# The driver sanity suite against the project's drivers and the node e2e tests' driver: it plays
# the kubelet over their sockets, in about a second each.
"${nice_go[@]}" "$ROOT/scripts/driver-sanity.sh"
# The golangci-lint build (its own module): the project's sorted plugin.
(cd "$ROOT/hack/tools/golangci-lint" && GOWORK=off "${nice_go[@]}" go test ./sorted/...)
step_done "the project's tests, the driver sanity suite"

vm_lane="the multi-NUMA guest lane"
if [ "${E2E_NODE_VM:-}" = 1 ]; then
  bg_start "$vm_lane" "$ROOT/_output/e2e/e2e-node-vm.log" \
    env TOPOLOGY=numa2-smt FOCUS="${E2E_NODE_VM_FOCUS:-Resource Manager.*NUMA}" SKIP= \
    "$ROOT/scripts/e2e-node-vm.sh"
fi

kind_wanted=false
if [ "${SKIP_KIND:-}" != 1 ] && (. "$ROOT/hack/kind/lib.sh" && docker_available); then
  kind_wanted=true
  # The kind node image and e2e.test are CPU work too: built while the node e2e suite still runs.
  if bg_running "$node_e2e"; then
    log "the kind node image (scripts/kind-image.sh) and e2e.test, beside the node e2e suite"
    nice -n 19 "$ROOT/scripts/kind-image.sh" >/dev/null
    nice -n 19 "$ROOT/hack/build.sh" e2e.test
    step_done "the kind node image and e2e.test"
  fi
fi

if [ "${SKIP_E2E_NODE:-}" = 1 ]; then
  log "the node e2e suite is left out (SKIP_E2E_NODE=1): run make e2e-node"
elif [ -n "${bg_pid[$node_e2e]:-}" ]; then
  bg_wait "$node_e2e"
  step_done "waiting for the node e2e suite"
else
  run_e2e_node
  step_done "the node e2e suite"
fi

if [ "${SKIP_KIND:-}" = 1 ]; then
  log "the cluster e2e specs are left out (SKIP_KIND=1): run make e2e-cluster"
elif ! $kind_wanted; then
  log "the cluster e2e specs are skipped: no Docker engine answers here (docker info)"
else
  log "the cluster e2e specs on a kind cluster of their own (scripts/e2e-cluster.sh)"
  env -u KUBECONFIG FOCUS= SKIP= "$ROOT/scripts/e2e-cluster.sh"
  step_done "the cluster e2e specs (kind)"
fi

if [ "${E2E_NODE_VM:-}" = 1 ]; then
  bg_wait "$vm_lane"
  step_done "waiting for the multi-NUMA guest lane"
else
  log "the multi-NUMA guest lane is left out (E2E_NODE_VM=1 runs it, as CI does): run make e2e-node-vm"
fi
