#!/usr/bin/env bash
# Builds the multi-NUMA guest's image offline, from Debian's packages, and prints its directory:
# a Debian bookworm root file system (mmdebstrap) with Debian's kernel, systemd as PID 1,
# containerd, runc, the CNI plugins, sshd, numactl and sudo, written into an ext4 disk image with
# `mkfs.ext4 -d` (no loop mount), beside the kernel and initrd qemu boots directly. Nothing of the
# project is in it: guest.sh copies the binaries and images of this checkout's build in.
#
# Usage: e2e-node/vm/image.sh [--force]
#
# The image is reused while its inputs (this script, files/, the packages) are unchanged: it lives in
# the cache outside the checkout (hack/cache.sh), kind "vm", keyed by a hash of the inputs
# (vmlinuz, initrd.img, disk.raw). Root logs in with the key made with the image, copied to
# $VM_OUT/ssh/id_ed25519, over ssh only.
set -o errexit -o nounset -o pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

force=false
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --force) force=true ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
need_root

# Debian's containerd 1.6, runc and CNI plugins, as in the kind base image; the kernel with its
# initramfs (virtio drivers as modules); what the kubelet and the suite run on a node.
PKGS=linux-image-amd64,initramfs-tools,systemd,systemd-sysv,udev,dbus,openssh-server,sudo,
PKGS+=containerd,runc,containernetworking-plugins,iptables,iproute2,kmod,procps,util-linux,mount,
PKGS+=numactl,e2fsprogs,conntrack,ethtool,libseccomp2,less
DISK_SIZE=${VM_DISK_SIZE:-8G}

# build_image DIR: the image into DIR (vmlinuz, initrd.img, disk.raw) with the ssh key it authorizes
# (DIR/ssh/id_ed25519, made for it).
build_image() {
  local out=$1 work start
  apt_install /usr/sbin/mkfs.ext4 e2fsprogs
  mkdir -p "$out/ssh"
  ssh-keygen -q -t ed25519 -N '' -C e2e-node-vm -f "$out/ssh/id_ed25519"
  work=$(mktemp -d "$VM_OUT/build.XXXXXX")
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  log "building the guest image: Debian bookworm with its kernel (mmdebstrap, a few minutes)"
  start=$SECONDS
  debian_rootfs "$work/rootfs" --format=directory \
    --include="$PKGS" \
    --customize-hook='set -e; R="$1"
      cp -a '"$VM_DIR"'/files/. "$R/"
      install -m 0700 -d "$R/root/.ssh"
      install -m 0600 '"$out/ssh/id_ed25519.pub"' "$R/root/.ssh/authorized_keys"
      echo e2e-vm >"$R/etc/hostname"
      printf "127.0.0.1 localhost\n127.0.1.1 e2e-vm\n::1 localhost\n" >"$R/etc/hosts"
      printf "nameserver 10.0.2.3\n" >"$R/etc/resolv.conf"
      printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$R/etc/fstab"
      chroot "$R" systemctl enable -q systemd-networkd ssh 2>/dev/null
      # The suite starts its own containerd (e2e-node/containerd.sh); no apt or timers in a test guest.
      chroot "$R" systemctl disable containerd apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer 2>/dev/null || true
      chroot "$R" passwd -l root >/dev/null
      rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/* "$R"/var/log/*.log "$R"/tmp/* "$R"/var/tmp/*
      : >"$R/etc/machine-id"'
  info "root file system: $(du -sh "$work/rootfs" | cut -f1) in $((SECONDS - start))s"
  cp "$(readlink -f "$work/rootfs/vmlinuz")" "$out/vmlinuz"
  cp "$(readlink -f "$work/rootfs/initrd.img")" "$out/initrd.img"
  truncate -s "$DISK_SIZE" "$out/disk.raw"
  mkfs.ext4 -q -L e2e-vm -d "$work/rootfs" "$out/disk.raw" || die "mkfs.ext4 -d failed"
  info "guest image (kernel $(file -b "$out/vmlinuz" 2>/dev/null | sed -n 's/.*version \([^ ]*\).*/\1/p'), disk $(du -h "$out/disk.raw" | cut -f1) used of $DISK_SIZE) in $((SECONDS - start))s"
}

# Kept in the cache outside the checkout (hack/cache.sh) under the key of its inputs: this script,
# files/, the packages and the disk size.
mkdir -p "$VM_OUT"
key=$({ cat "$0"; echo "$PKGS $DISK_SIZE"; (cd "$VM_DIR/files" && find . -type f | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done); } | cache_key)
if $force; then
  chmod -R u+w "$(cache_path vm "$key")" 2>/dev/null || true
  rm -rf "$(cache_path vm "$key")"
fi
OUT=$(cached vm "$key" "guest image" build_image)
# The key the image authorizes, where guest.sh's ssh finds it.
mkdir -p "$(dirname "$VM_KEY")"
install -m 0600 "$OUT/ssh/id_ed25519" "$VM_KEY"
install -m 0644 "$OUT/ssh/id_ed25519.pub" "$VM_KEY.pub"
echo "$OUT"
