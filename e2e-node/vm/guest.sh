#!/usr/bin/env bash
# Boots, reaches and stops the multi-NUMA test guest: qemu with the image of image.sh, a topology
# preset as -smp / -numa options, user-mode networking with the guest's ssh forwarded to a loopback
# port only (the guest reaches nothing else: restrict=on), and the disk in snapshot mode (every boot
# starts from the clean image; writes go to a temporary file that qemu deletes).
#
# Usage: e2e-node/vm/guest.sh start [--topology NAME] [--cgroup v1|v2] [--name NAME]
#        e2e-node/vm/guest.sh stop [--name NAME]
#        e2e-node/vm/guest.sh ssh [--name NAME] [COMMAND...]
#        e2e-node/vm/guest.sh host [--name NAME]     prints ssh://root@127.0.0.1:PORT
#        e2e-node/vm/guest.sh ssh-opts                prints the ssh options for the guest
#
#   --topology  a preset (default numa2-smt): numa2 = 2 sockets, 1 NUMA node each, 2 CPUs per
#               node, no SMT; numa2-smt = 2 sockets, 1 NUMA node each, 2 cores x 2 threads per
#               node (8 CPUs); 2 GiB of memory per node
#   --cgroup    v2 (default: the unified hierarchy) or v1 (systemd.unified_cgroup_hierarchy=0)
#   --name      the guest's name, for several guests at once (default e2e-vm)
#
# start waits until sshd answers (up to VM_BOOT_TIMEOUT seconds, default 300) and prints the
# guest's lscpu and numactl -H. The serial console goes to $VM_OUT/run/NAME/console.log.
# Environment: VM_ACCEL (default tcg; kvm on hosts where KVM runs guests: qemu falls back to tcg
# only when /dev/kvm cannot be opened, and on this project's machines /dev/kvm opens but a KVM guest
# hangs before its first console line), VM_BOOT_TIMEOUT.
set -o errexit -o nounset -o pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

cmd=${1:-}
[ -n "$cmd" ] || { usage >&2; exit 2; }
shift
topology=$VM_DEFAULT_TOPOLOGY
cgroup=v2
name=e2e-vm
case $cmd in -h | --help) usage; exit 0 ;; esac
while [ $# -gt 0 ]; do
  case $1 in
    --topology) topology=${2:?--topology needs a name}; shift ;;
    --cgroup) cgroup=${2:?--cgroup needs v1 or v2}; shift ;;
    --name) name=${2:?--name needs a name}; shift ;;
    --) shift; break ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "--name '$name': letters, digits, '.', '_' and '-' only"
RUN=$VM_OUT/run/$name
mapfile -t SSH_OPTS < <(vm_ssh_opts)

running() { [ -s "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; }
port() { cat "$RUN/port" 2>/dev/null || die "guest $name is not running (start it with $0 start)"; }
guest_ssh() { ssh "${SSH_OPTS[@]}" -o BatchMode=yes -p "$(port)" root@127.0.0.1 "$@"; }

# free_port: a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local p
  for p in $(seq 10022 10122); do
    [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] || { echo "$p"; return 0; }
  done
  die "no free port in 10022-10122 on 127.0.0.1 for the guest's ssh"
}

start() {
  need_root
  case $cgroup in
    v2) cgroup_arg=systemd.unified_cgroup_hierarchy=1 ;;
    v1) cgroup_arg="systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1" ;;
    *) die "--cgroup '$cgroup': v1 or v2" ;;
  esac
  mapfile -t topo < <(qemu_topology "$topology")
  ! running || die "guest $name runs already (pid $(cat "$RUN/pid")): stop it with $0 stop --name $name"
  apt_install qemu-system-x86_64 qemu-system-x86
  local image
  image=$("$VM_DIR/image.sh")
  rm -rf "$RUN"
  mkdir -p "$RUN"
  local p accel=${VM_ACCEL:-tcg} accel_args=()
  case $accel in
    tcg) accel_args=(-accel tcg,thread=multi) ;;
    # qemu tries them in order: TCG when KVM cannot be initialized.
    kvm) accel_args=(-accel kvm -accel tcg,thread=multi) ;;
    *) die "VM_ACCEL '$accel': tcg or kvm" ;;
  esac
  p=$(free_port)
  echo "$p" >"$RUN/port"
  echo "$topology" >"$RUN/topology"
  log "booting guest $name: topology $topology (${topo[*]}), cgroup $cgroup, accel $accel, ssh on 127.0.0.1:$p"
  TMPDIR=$RUN qemu-system-x86_64 -name "$name" -machine q35 -cpu max,vendor=GenuineIntel "${accel_args[@]}" "${topo[@]}" \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 $cgroup_arg" \
    -drive "file=$image/disk.raw,format=raw,if=virtio,snapshot=on" \
    -netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$p-:22" -device virtio-net-pci,netdev=net0 \
    -display none -monitor none -serial "file:$RUN/console.log" \
    -pidfile "$RUN/pid" -daemonize 2>"$RUN/qemu.log" ||
    die "qemu did not start: $(cat "$RUN/qemu.log")"
  local start=$SECONDS timeout=${VM_BOOT_TIMEOUT:-300}
  until guest_ssh true 2>/dev/null; do
    running || die "qemu exited while booting: see $RUN/console.log and $RUN/qemu.log"
    [ $((SECONDS - start)) -lt "$timeout" ] || {
      tail -n 20 "$RUN/console.log" >&2 || true
      die "guest $name: no ssh after ${timeout}s (console above, whole in $RUN/console.log)"
    }
    sleep 2
  done
  info "guest $name up in $((SECONDS - start))s ($(guest_ssh systemd-detect-virt 2>/dev/null || echo '?'); $(guest_ssh uname -r))"
  guest_ssh 'lscpu | grep -E "^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA)"; numactl -H; stat -fc "cgroup file system: %T" /sys/fs/cgroup' |
    sed 's/^/    /' >&2
}

stop() {
  if running; then
    local pid
    pid=$(cat "$RUN/pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    info "guest $name stopped"
  fi
  # The console log stays with the runs that read it; the snapshot file went with qemu.
  rm -f "$RUN/pid" "$RUN/port"
}

case $cmd in
  start) start ;;
  stop) stop ;;
  ssh) guest_ssh "$@" ;;
  host) echo "ssh://root@127.0.0.1:$(port)" ;;
  ssh-opts) printf '%s\n' "${SSH_OPTS[@]}" ;;
  *) usage >&2; exit 2 ;;
esac
