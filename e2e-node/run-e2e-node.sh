#!/usr/bin/env bash
# Runs upstream's node e2e suite (test/e2e_node, services mode: etcd, kube-apiserver and the
# namespace controller in a child process, the kubelet as a child process) against a private
# containerd (containerd.sh) with locally built images (images.sh), offline, then cleans up:
# kubelet, pods, containerd, the kubelet's cgroups and directories, the host sysctls it changes.
#
# Usage: run-e2e-node.sh [--dir DIR] [--skip REGEXP] [--prebuilt-images] FOCUS
#   FOCUS          Ginkgo focus regexp, e.g. 'CPU Manager.*when running guaranteed pod tests'
#   --skip REGEXP  Ginkgo skip regexp
#   --prebuilt-images  import the image tarballs in $E2E_OUT/images instead of building them
#                  (`images.sh --prebuilt`: what a host of the remote runner does)
#   --dir DIR      work directory (default /tmp/e2e-node; must not exist); the report, logs and
#                  the kubelet configs are copied to $E2E_OUT/e2e-node/<time> afterwards
#
# Environment: E2E_NODE_TEST (default $BIN/e2e_node.test, built by `hack/build.sh e2e_node.test`;
# the suite runs the kubelet binary found next to it); FEATURE_GATES for the kubelet and the API
# server (default PluggableResourceManagement=true; the kubelet gets them in its configuration
# file, not on its command line, so that a spec can turn one off by rewriting the configuration,
# as upstream's specs do); KEEP_DIR, where the report and logs are kept
# (default $E2E_OUT/e2e-node/<time>); TIMEOUT, after which the suite fails (--ginkgo.timeout,
# default 24h as upstream's test-e2e-node.sh: Ginkgo's own 1h cuts off long runs in a slow guest);
# E2E_NODE_TEST_ARGS, more flags for e2e_node.test (for example
# --resource-manager-churn-cycles=500).
# Without a booted systemd the tree needs
# patch 0014 of the series (e2e_node: run and restart the kubelet without a booted systemd): else
# the suite starts the kubelet with systemd-run when it is on PATH, and
# every spec that reconfigures the kubelet fails in `sudo systemctl`.
#
# The kubelet gets --system-cgroups= --kubelet-cgroups= --runtime-cgroups=: without systemd the
# suite would set systemCgroups=/system, and the kubelet would move every process of the host's
# root cgroup into it (ensureSystemCgroups), other users' processes included.
set -o errexit -o nounset -o pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

WORK=/tmp/e2e-node
focus=
skip=
images_mode=
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --dir) WORK=$(abs_dir "${2:?--dir needs a directory}"); shift ;;
    --skip) skip=${2:?--skip needs a regexp}; shift ;;
    --prebuilt-images) images_mode=--prebuilt ;;
    -*) usage >&2; exit 2 ;;
    *) [ -z "$focus" ] || { usage >&2; exit 2; }; focus=$1 ;;
  esac
  shift
done
[ -n "$focus" ] || { usage >&2; exit 2; }

E2E_NODE_TEST=${E2E_NODE_TEST:-$BIN/e2e_node.test}
FEATURE_GATES=${FEATURE_GATES-PluggableResourceManagement=true}
gate_re='[A-Za-z0-9]+=(true|false)'
[[ -z $FEATURE_GATES || $FEATURE_GATES =~ ^$gate_re(,$gate_re)*$ ]] ||
  die "FEATURE_GATES='$FEATURE_GATES': expected Name=true|false[,Name=true|false...]"
CTRD=$WORK/containerd
# What the suite's kubelet creates on the host (root dir and cgroup root are fixed by the suite).
HOST_PATHS=(/var/lib/kubelet /var/log/pods /var/log/containers)
CGROUPS=(kubepods system kubelet)

need_root
[ -x "$E2E_NODE_TEST" ] || die "no $E2E_NODE_TEST (build it with hack/build.sh e2e_node.test)"
[ -x "$(dirname "$E2E_NODE_TEST")/kubelet" ] || die "no kubelet next to $E2E_NODE_TEST"
[ ! -e "$WORK" ] || die "$WORK exists (an earlier run?): remove it first"
if [ ! -d /run/systemd/system ] && command -v systemd-run >/dev/null &&
  ! grep -q 'e2e_node/services.SystemdBooted' "$E2E_NODE_TEST"; then
  warn "systemd is not booted but systemd-run is on PATH, and $E2E_NODE_TEST lacks patch 0014 (run and restart the kubelet without a booted systemd): the kubelet will not start"
fi
for p in /var/lib/kubelet/pods /sys/fs/cgroup/cpu/kubepods; do
  [ ! -e "$p" ] || die "$p exists: another kubelet runs on this host, or an earlier run left it"
done

mkdir -p "$WORK/run" "$WORK/report" "$WORK/volume-plugins"
save_sysctls "$WORK/sysctls"
for p in "${HOST_PATHS[@]}"; do [ -e "$p" ] || echo "$p"; done >"$WORK/host-paths-created"
for c in "${CGROUPS[@]}"; do [ -e "/sys/fs/cgroup/cpu/$c" ] || echo "$c"; done >"$WORK/cgroups-created"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  log "cleaning up $WORK"
  local pid p c base keep
  # The test process first: it stops its services and writes its report on SIGTERM.
  if [ -n "${test_pid:-}" ] && kill -TERM "$test_pid" 2>/dev/null; then
    for _ in $(seq 1 60); do
      kill -0 "$test_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$test_pid" 2>/dev/null || true
    wait "$test_pid" 2>/dev/null || true
  fi
  # The suite's kubelet: the binary next to the test binary, with the suite's root dir.
  for pid in $(pgrep -f "^$(dirname "$E2E_NODE_TEST")/kubelet .*--root-dir /var/lib/kubelet" || true); do
    kill -TERM "$pid" 2>/dev/null || true
  done
  sleep 2
  for pid in $(pgrep -f "^$(dirname "$E2E_NODE_TEST")/kubelet .*--root-dir /var/lib/kubelet" || true); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  # Kept with the report (below): --purge removes it.
  cp "$CTRD/containerd.log" "$WORK/containerd.log" 2>/dev/null || true
  "$E2E_DIR/containerd.sh" stop --purge "$CTRD" || warn "containerd.sh stop failed"
  while IFS= read -r c; do
    for base in /sys/fs/cgroup/*; do
      [ -d "$base/$c" ] || continue
      find "$base/$c" -depth -type d -exec rmdir {} \; 2>/dev/null || warn "cannot remove cgroup $base/$c"
    done
  done <"$WORK/cgroups-created"
  restore_sysctls "$WORK/sysctls"
  while IFS= read -r p; do
    [ -e "$p" ] || continue
    unmount_under "$p"
    rm -rf "$p" && info "removed $p"
  done <"$WORK/host-paths-created"
  unmount_under "$WORK"
  keep=${KEEP_DIR:-$E2E_OUT/e2e-node/$(date +%Y%m%d-%H%M%S)}
  mkdir -p "$keep"
  cp -r "$WORK/report" "$WORK/e2e.log" "$WORK/kubeletconfig.yaml" "$WORK/containerd.log" "$keep/" 2>/dev/null || true
  cp -r "$WORK/run/kubelet-config" "$WORK/run/kubelet.conf.d" "$keep/" 2>/dev/null || true
  info "report and logs kept in $keep"
  [ -z "$(mounts_under "$WORK")" ] || die "mounts remain under $WORK; not removing it"
  rm -rf "$WORK"
}
trap cleanup EXIT
# Interrupted: exit, so that the EXIT trap cleans up.
trap 'exit 130' INT
trap 'exit 143' TERM

"$E2E_DIR/containerd.sh" start "$CTRD" >/dev/null
"$E2E_DIR/images.sh" ${images_mode:+"$images_mode"} "$CTRD"

# The suite's base kubelet configuration (--kubelet-config-file). It overrides authentication,
# authorization, readOnlyPort and staticPodPath, and adds --config-dir for the specs' drop-ins.
cat >"$WORK/kubeletconfig.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /
makeIPTablesUtilChains: false
failSwapOn: false
volumePluginDir: $WORK/volume-plugins
fileCheckFrequency: 10s
volumeStatsAggPeriod: 10s
serializeImagePulls: false
podCIDR: 10.100.0.0/24
evictionPressureTransitionPeriod: 30s
evictionHard:
  memory.available: 250Mi
  nodefs.available: 10%
  nodefs.inodesFree: 5%
evictionMinimumReclaim:
  nodefs.available: 5%
  nodefs.inodesFree: 5%
EOF
if [ -n "$FEATURE_GATES" ]; then
  echo "featureGates:" >>"$WORK/kubeletconfig.yaml"
  tr ',' '\n' <<<"$FEATURE_GATES" | sed 's/^\(.*\)=\(.*\)$/  \1: \2/' >>"$WORK/kubeletconfig.yaml"
fi

args=(
  --ginkgo.focus="$focus" --ginkgo.v --ginkgo.no-color --ginkgo.timeout="${TIMEOUT:-24h}"
  --container-runtime-endpoint="unix://$CTRD/containerd.sock"
  --prepull-images=false
  --kubelet-config-file="$WORK/kubeletconfig.yaml"
  --kubelet-flags="--system-cgroups= --kubelet-cgroups= --runtime-cgroups="
  --report-dir="$WORK/report"
  --node-name="$(hostname)"
  # The in-process API server's gates: spec.resourceDriver is dropped from pods when its gate
  # is off. The kubelet's are in its configuration file (--feature-gates would pin them).
  --service-feature-gates="$FEATURE_GATES"
)
[ -z "$skip" ] || args+=(--ginkgo.skip="$skip")
# shellcheck disable=SC2206 # E2E_NODE_TEST_ARGS is a list of flags
[ -z "${E2E_NODE_TEST_ARGS:-}" ] || args+=($E2E_NODE_TEST_ARGS)
log "running $E2E_NODE_TEST --ginkgo.focus='$focus' (log: $WORK/e2e.log)"
start=$SECONDS
# The suite writes its kubeconfig and kubelet config files into the working directory.
(cd "$WORK/run" && exec "$E2E_NODE_TEST" "${args[@]}") >"$WORK/e2e.log" 2>&1 &
test_pid=$!
next=30
while kill -0 "$test_pid" 2>/dev/null; do
  sleep 1
  if [ $((SECONDS - start)) -ge "$next" ]; then
    info "$((SECONDS - start))s: $(grep -cE '^• ' "$WORK/e2e.log" || true) spec(s) run"
    next=$((next + 30))
  fi
done
rc=0
wait "$test_pid" || rc=$?
test_pid=
grep -E '^(Ran |SUCCESS|FAIL)|^\s*\[FAIL\]' "$WORK/e2e.log" | sed 's/^/    /' >&2 || true
log "e2e_node.test exited $rc after $((SECONDS - start))s"
exit "$rc"
