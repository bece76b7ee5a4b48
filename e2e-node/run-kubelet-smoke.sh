#!/usr/bin/env bash
# Smoke check of the patched kubelet: runs it standalone (no API server) against a private
# containerd (containerd.sh) with locally built images (images.sh) and a static busybox pod that
# requests 1 CPU (Guaranteed QoS) and prints its Cpus_allowed_list, once per case:
#   static          cpuManagerPolicy static, reservedSystemCPUs "0"       -> the pod gets CPU 1 alone
#   rm-shared       cpuManagerPolicy resource-management, no driver named  -> the shared pool (0-1)
#   rm-fallback     resource-management, option fallback-policy=static     -> CPU 1 alone
#   rm-driver       resource-management, the pod names $DRIVER_NAME, served by
#                   $DRIVER on the host                                   -> the CPUs the driver chose
# All with the PluggableResourceManagement feature gate on. Everything is cleaned up afterwards:
# kubelet, driver, pods, containerd, cgroups, mounts, the bridge, the host sysctls the kubelet
# changes, and the directories it created.
#
# Usage: run-kubelet-smoke.sh [--keep] [--report] [--dir DIR] [CASE...]
#   CASE         one or more of: static rm-shared rm-fallback rm-driver (default: all)
#   --dir DIR    work directory (default /tmp/e2e-smoke; must not exist, or be from an earlier run)
#   --keep       leave everything running after the first case, for a look (clean up later
#                with: run-kubelet-smoke.sh --cleanup [--dir DIR])
#   --cleanup    only clean up what an earlier (kept or killed) run left
#   --report     also print what the kubelet's pod resources API says of each case's pod (make demo)
#
# Environment: BIN (kubelet and example-driver, default $ROOT/_output/bin; KUBELET and DRIVER
# override each), DRIVER_NAME (the name the driver registers, default cpu.example.com; the
# driver is run with -registry-dir DIR -plugin-dir DIR, as drivers/example and drivers/minimal
# take them), TREE (image names),
# SMOKE_CGROUP_ROOT (the kubelet's cgroupRoot, default /e2e-smoke, so its kubepods never mix with
# another kubelet's), SMOKE_PORT (kubelet port, default 10350; healthz on SMOKE_PORT-2).
# Exits 0 when every case printed the expected CPUs, 1 otherwise; skips (exit 0) without a kubelet.
set -o errexit -o nounset -o pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

WORK=/tmp/e2e-smoke
keep=false
report=false
cleanup_only=false
cases=()
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --keep) keep=true ;;
    --report) report=true ;;
    --cleanup) cleanup_only=true ;;
    --dir) WORK=$(abs_dir "${2:?--dir needs a directory}"); shift ;;
    static | rm-shared | rm-fallback | rm-driver) cases+=("$1") ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[ ${#cases[@]} -gt 0 ] || cases=(static rm-shared rm-fallback rm-driver)

KUBELET=${KUBELET:-$BIN/kubelet}
DRIVER=${DRIVER:-$BIN/example-driver}
DRIVER_NAME=${DRIVER_NAME:-cpu.example.com}
CTRD=$WORK/containerd
SOCK=$CTRD/containerd.sock
CGROUP_ROOT=${SMOKE_CGROUP_ROOT:-/e2e-smoke}
PORT=${SMOKE_PORT:-10350}
HEALTHZ_PORT=$((PORT - 2))
# Host paths the kubelet uses whatever its root dir (device manager socket, container log links).
HOST_PATHS=(/var/lib/kubelet /var/log/containers /var/log/pods)

need_root
case $CGROUP_ROOT in /?*) ;; *) die "SMOKE_CGROUP_ROOT must be an absolute cgroup path other than /" ;; esac

# pid_alive FILE: the process whose pid FILE holds is alive.
pid_alive() { local pid; pid=$(cat "$1" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

# stop_pid FILE NAME: TERM, then KILL after 10s, the process FILE names.
stop_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    info "stopped $2 (pid $pid)"
  fi
  rm -f "$1"
}

# remove_cgroups: the kubelet's cgroup tree under CGROUP_ROOT, deepest first, in every hierarchy.
remove_cgroups() {
  local base n=0 d
  for base in /sys/fs/cgroup/*/"${CGROUP_ROOT#/}"; do
    [ -d "$base" ] || continue
    while IFS= read -r d; do
      if rmdir "$d" 2>/dev/null; then n=$((n + 1)); else warn "cannot remove cgroup $d"; fi
    done < <(find "$base" -depth -type d)
  done
  [ "$n" = 0 ] || info "removed $n cgroup(s) under $CGROUP_ROOT"
}

create_cgroup_root() {
  local base ctl
  for base in /sys/fs/cgroup/*; do
    [ -f "$base/cgroup.procs" ] || continue # cgroup v1 hierarchies only
    mkdir -p "$base/${CGROUP_ROOT#/}"
    ctl=$(basename "$base")
    if [ "$ctl" = cpuset ] || [ -f "$base/cpuset.cpus" ]; then
      cat "$base/cpuset.cpus" >"$base/${CGROUP_ROOT#/}/cpuset.cpus"
      cat "$base/cpuset.mems" >"$base/${CGROUP_ROOT#/}/cpuset.mems"
    fi
  done
}

cleanup() {
  log "cleaning up $WORK"
  local c
  for c in "$WORK"/case-*; do
    [ -d "$c" ] || continue
    stop_pid "$c/kubelet.pid" kubelet
    stop_pid "$c/driver.pid" driver
  done
  if [ -d "$WORK" ]; then # keep the logs and configs for a look afterwards
    local logs
    logs=$E2E_OUT/smoke-logs/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$logs"
    cp "$CTRD/containerd.log" "$CTRD/config.toml" "$logs/" 2>/dev/null || true
    for c in "$WORK"/case-*; do
      [ -d "$c" ] || continue
      mkdir -p "$logs/${c##*/}"
      cp -r "$c"/*.log "$c/config.yaml" "$c/manifests" "$c/logs" "$logs/${c##*/}/" 2>/dev/null || true
    done
    info "logs and configs kept in $logs"
  fi
  if [ -d "$CTRD" ]; then
    "$E2E_DIR/containerd.sh" stop --purge "$CTRD" || warn "containerd.sh stop failed"
  fi
  remove_cgroups
  restore_sysctls "$WORK/sysctls"
  if [ -f "$WORK/host-paths-created" ]; then
    local p
    while IFS= read -r p; do
      [ -e "$p" ] || continue
      rm -rf "$p" && info "removed $p (created by the kubelet during this run)"
    done <"$WORK/host-paths-created"
  fi
  [ ! -d "$WORK" ] || unmount_under "$WORK"
  [ -z "$(mounts_under "$WORK")" ] || die "mounts remain under $WORK; not removing it"
  rm -rf "$WORK"
}

if $cleanup_only; then
  cleanup
  exit 0
fi

if [ ! -x "$KUBELET" ]; then
  log "SKIP: no kubelet at $KUBELET (build it with hack/build.sh kubelet)"
  exit 0
fi
[ ! -e "$WORK" ] || die "$WORK exists: clean up an earlier run with $0 --cleanup --dir $WORK"
mkdir -p "$WORK"
$keep || trap cleanup EXIT
start=$SECONDS

# What the kubelet changes on the host, to put back afterwards.
save_sysctls "$WORK/sysctls"
for p in "${HOST_PATHS[@]}"; do [ -e "$p" ] || echo "$p"; done >"$WORK/host-paths-created"

log "kubelet: $KUBELET ($("$KUBELET" --version))"
"$E2E_DIR/containerd.sh" start "$CTRD" >/dev/null
"$E2E_DIR/images.sh" "$CTRD"
CRI=$(project_tool cri)
BUSYBOX=$(busybox_image)
create_cgroup_root

# write_case CASE DIR: the kubelet config and the static pod of one case.
write_case() {
  local name=$1 dir=$2 policy options="" driver_line="" alpha_options=false
  case $name in
    static) policy=static ;;
    rm-shared) policy=resource-management ;;
    rm-fallback) policy=resource-management alpha_options=true
      options='cpuManagerPolicyOptions: {fallback-policy: static}' ;;
    rm-driver) policy=resource-management; driver_line="  resourceDriver: $DRIVER_NAME" ;;
  esac
  mkdir -p "$dir/manifests" "$dir/logs" "$dir/root" "$dir/pki" "$dir/volume-plugins"
  cat >"$dir/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  PluggableResourceManagement: true
  CPUManagerPolicyAlphaOptions: $alpha_options
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
containerRuntimeEndpoint: unix://$SOCK
staticPodPath: $dir/manifests
fileCheckFrequency: 5s
podLogsDir: $dir/logs
volumePluginDir: $dir/volume-plugins
address: 127.0.0.1
port: $PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $HEALTHZ_PORT
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
makeIPTablesUtilChains: false
failSwapOn: false
cpuManagerPolicy: $policy
$options
reservedSystemCPUs: "0"
cpuManagerReconcilePeriod: 5s
EOF
  cat >"$dir/manifests/cpu-smoke.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: cpu-smoke-$name
  namespace: default
spec:
$driver_line
  containers:
  - name: busybox
    image: $BUSYBOX
    imagePullPolicy: Never
    command: ["sh", "-c", "grep Cpus_allowed_list /proc/self/status; sleep 3600"]
    resources:
      requests: {cpu: "1", memory: 64Mi}
      limits: {cpu: "1", memory: 64Mi}
EOF
}

# wait_for SECONDS CMD...: polls CMD every second.
wait_for() {
  local t=$1
  shift
  for _ in $(seq 1 "$t"); do "$@" && return 0; sleep 1; done
  return 1
}

container_log() { cat "$1"/logs/default_cpu-smoke-*/busybox/0.log 2>/dev/null; }
# shellcheck disable=SC2317 # called through wait_for
has_cpus_line() { [[ $(container_log "$1") == *Cpus_allowed_list* ]]; }
healthy() { curl -fsS "http://127.0.0.1:$HEALTHZ_PORT/healthz" >/dev/null 2>&1; }
# healthy_or_exited DIR: the kubelet answers its healthz, or it is gone (no point waiting).
# shellcheck disable=SC2317 # called through wait_for
healthy_or_exited() { healthy || ! pid_alive "$1/kubelet.pid"; }

# run_case CASE: one kubelet run; prints RESULT lines; returns 1 when the CPUs are not the expected.
run_case() {
  local name=$1 dir=$WORK/case-$1 want got t0=$SECONDS
  log "case $name"
  write_case "$name" "$dir"
  if [ "$name" = rm-driver ]; then
    [ -x "$DRIVER" ] || { log "SKIP $name: no $DRIVER"; return 0; }
    mkdir -p "$dir/root/plugins_registry" "$dir/root/plugins/$DRIVER_NAME"
    setsid "$DRIVER" -registry-dir "$dir/root/plugins_registry" -plugin-dir "$dir/root/plugins/$DRIVER_NAME" \
      >"$dir/driver.log" 2>&1 </dev/null &
    echo $! >"$dir/driver.pid"
    info "$(basename "$DRIVER") started (pid $(cat "$dir/driver.pid"), log $dir/driver.log)"
  fi
  setsid "$KUBELET" --config "$dir/config.yaml" --root-dir "$dir/root" --cert-dir "$dir/pki" --v=2 \
    >"$dir/kubelet.log" 2>&1 </dev/null &
  echo $! >"$dir/kubelet.pid"
  info "kubelet started (pid $(cat "$dir/kubelet.pid"), log $dir/kubelet.log)"
  wait_for 60 healthy_or_exited "$dir" || true
  if ! healthy; then
    pid_alive "$dir/kubelet.pid" || info "kubelet exited after $((SECONDS - t0))s"
    grep -E '^[EF][0-9]{4}' "$dir/kubelet.log" | tail -n 15 | sed 's/^/    | /' >&2
    echo "RESULT $name: FAIL (kubelet not healthy)"
    stop_pid "$dir/kubelet.pid" kubelet
    stop_pid "$dir/driver.pid" "$(basename "$DRIVER")"
    return 1
  fi
  info "kubelet healthy after $((SECONDS - t0))s"
  if ! wait_for 90 has_cpus_line "$dir"; then
    grep -E '^[EF][0-9]{4}' "$dir/kubelet.log" | tail -n 15 | sed 's/^/    | /' >&2
    "$CRI" -endpoint "unix://$SOCK" ps | sed 's/^/    /' >&2 || true
    echo "RESULT $name: FAIL (no Cpus_allowed_list in the container log within 90s)"
    return 1
  fi
  got=$(container_log "$dir" | sed -nE 's/.*Cpus_allowed_list:[[:space:]]*([0-9,-]+).*/\1/p' | sed -n 1p)
  "$CRI" -endpoint "unix://$SOCK" ps | sed 's/^/    /' >&2
  info "container log: $(container_log "$dir" | sed -n 1p)"
  info "cpu_manager_state: $(cat "$dir/root/cpu_manager_state" 2>/dev/null)"
  [ ! -f "$dir/root/resource_manager_state" ] || info "resource_manager_state: $(cat "$dir/root/resource_manager_state")"
  info "kubelet error lines: $(grep -cE '^E[0-9]{4}' "$dir/kubelet.log" || true)"
  if $report; then
    echo "REPORT $name: pod cpu-smoke-$name ($(grep -q resourceDriver "$dir/manifests/cpu-smoke.yaml" && echo "resourceDriver $DRIVER_NAME" || echo 'no resourceDriver')): inside the container Cpus_allowed_list=$got"
    "$(project_tool podresources)" -socket "$dir/root/pod-resources/kubelet.sock" -namespace default |
      sed "s/^/REPORT $name: pod resources API: /"
    echo "REPORT $name: shared pool (CPU manager state): $(sed -n 's/.*"defaultCpuSet":"\([^"]*\)".*/\1/p' "$dir/root/cpu_manager_state")"
  fi
  case $name in
    static | rm-fallback) want=1 ;;
    rm-shared) want=$(cat /sys/devices/system/cpu/online) ;;
    # What the kubelet stored as the driver's answer (it validated it: never the reserved CPU 0).
    rm-driver) want=$(sed -n 's/.*\\"cpus\\":\\"\([0-9,-]*\)\\".*/\1/p' "$dir/root/resource_manager_state" 2>/dev/null) ;;
  esac
  if ! $keep; then
    stop_pid "$dir/kubelet.pid" kubelet
    stop_pid "$dir/driver.pid" "$(basename "$DRIVER")"
    "$CRI" -endpoint "unix://$SOCK" rmpods | sed 's/^/    /' >&2
  fi
  if [ -n "$want" ] && [ "$got" = "$want" ]; then
    echo "RESULT $name: PASS Cpus_allowed_list=$got (want $want) in $((SECONDS - t0))s"
  else
    echo "RESULT $name: FAIL Cpus_allowed_list=$got (want $want)"
    return 1
  fi
}

failed=0
for c in "${cases[@]}"; do
  run_case "$c" || failed=1
  if $keep; then
    log "--keep: leaving case $c running in $WORK; clean up with: $0 --cleanup --dir $WORK"
    exit "$failed"
  fi
  remove_cgroups # the pod cgroups of the stopped kubelet; the next case starts from scratch
  create_cgroup_root
done
log "done in $((SECONDS - start))s"
exit "$failed"
