#!/usr/bin/env bash
# Runs the node e2e suite on a simulated multi-NUMA host (make e2e-node-vm): builds the guest image
# when its inputs changed (e2e-node/vm/image.sh: Debian's kernel, systemd, containerd, runc, sshd,
# offline from Debian's packages), boots it under qemu with a topology preset
# (e2e-node/vm/guest.sh), runs the suite there through the remote runner (scripts/e2e-node-remote.sh:
# the binaries and images of this checkout are sent, nothing is built in the guest), and stops the
# guest. The guest's network is private: qemu's user-mode network with only its ssh port
# forwarded, to 127.0.0.1.
#
# Usage: scripts/e2e-node-vm.sh [-h|--help]
#
# Environment:
#   TOPOLOGY   numa2-smt (default: 2 sockets, 1 NUMA node each, 2 cores x 2 threads, 8 CPUs) or
#              numa2 (2 NUMA nodes x 2 CPUs, no SMT)
#   CGROUP     v2 (default) or v1
#   FOCUS      Ginkgo focus (default: the resource manager suite)
#   SKIP       Ginkgo skip regexp (default: [Slow], the churn spec, which would take half an hour
#              under emulation; empty: none)
#   MUST_RUN   specs that fail the run when they skip (default: the NUMA specs, and on numa2-smt
#              the SMT spec; empty: none)
#   VM_ACCEL   tcg (default) or kvm (falls back to tcg where /dev/kvm cannot run guests)
#   KEEP_GUEST=1  leave the guest running afterwards (e2e-node/vm/guest.sh ssh / stop)
#
# What it proves and what not: the kubelet, the drivers and the suite see a machine with several
# NUMA nodes and SMT siblings (sysfs, cgroups, cpuset.mems), as on real hardware. Timing under TCG is
# emulation timing, many times slower than hardware; nothing here measures performance.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../e2e-node/vm/lib.sh
. "$ROOT/e2e-node/vm/lib.sh"

case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unexpected argument $1 (see --help; set TOPOLOGY, FOCUS, ... in the environment)" ;;
esac
need_root
TOPOLOGY=${TOPOLOGY:-$VM_DEFAULT_TOPOLOGY}
CGROUP=${CGROUP:-v2}
qemu_topology "$TOPOLOGY" >/dev/null
case $TOPOLOGY in
  *smt*) default_must_run='NUMA|SMT' ;;
  *) default_must_run='NUMA' ;;
esac
export FOCUS=${FOCUS:-'\[Feature:PluggableResourceManagement\]'}
export SKIP=${SKIP-'\[Slow\]'}
export MUST_RUN=${MUST_RUN-$default_must_run}
name=e2e-node-vm

start=$SECONDS
# guest.sh start builds the image when its inputs changed.
if [ "${KEEP_GUEST:-}" != 1 ]; then
  trap '"$VM_DIR/guest.sh" stop --name "$name"' EXIT
fi
"$VM_DIR/guest.sh" start --name "$name" --topology "$TOPOLOGY" --cgroup "$CGROUP"
SSH_OPTS=$("$VM_DIR/guest.sh" ssh-opts | paste -sd' ')
export SSH_OPTS
rc=0
"$ROOT/scripts/e2e-node-remote.sh" "$("$VM_DIR/guest.sh" host --name "$name")" || rc=$?
log "make e2e-node-vm ($TOPOLOGY, cgroup $CGROUP) $([ "$rc" = 0 ] && echo passed || echo failed) in $((SECONDS - start))s"
exit "$rc"
