#!/usr/bin/env bash
# Builds the multi-NUMA guest's image offline, from Debian's packages, and prints its directory:
# a Debian bookworm root file system (mmdebstrap) with Debian's kernel, systemd as PID 1,
# containerd, runc, the CNI plugins, sshd, numactl and sudo, written into an ext4 disk image with
# `mkfs.ext4 -d` (no loop mount), beside the kernel and initrd qemu boots directly. Nothing of the
# project is in it: guest.sh copies the binaries and images of this checkout's build in.
#
# Usage: e2e-node/vm/image.sh [--force]
#
# The image is reused while its inputs (this script, files/, the key) are unchanged: it lives in
# $VM_OUT/image-<hash of the inputs>/ (vmlinuz, initrd.img, disk.raw). Root logs in with the key
# $VM_OUT/ssh/id_ed25519 (made on the first build), over ssh only.
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

mkdir -p "$VM_OUT/ssh"
[ -s "$VM_KEY" ] || ssh-keygen -q -t ed25519 -N '' -C e2e-node-vm -f "$VM_KEY"
hash=$({ cat "$0" "$VM_KEY.pub"; echo "$PKGS $DISK_SIZE";
  (cd "$VM_DIR/files" && find . -type f | sort | xargs cat); } | sha256sum | cut -c1-12)
OUT=$VM_OUT/image-$hash
if ! $force && [ -s "$OUT/disk.raw" ] && [ -s "$OUT/vmlinuz" ] && [ -s "$OUT/initrd.img" ]; then
  info "guest image $OUT is up to date"
  echo "$OUT"
  exit 0
fi

apt_install /usr/sbin/mkfs.ext4 e2fsprogs
work=$(mktemp -d "$VM_OUT/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "building the guest image $OUT: Debian bookworm with its kernel (mmdebstrap, a few minutes)"
start=$SECONDS
debian_rootfs "$work/rootfs" --format=directory \
  --include="$PKGS" \
  --customize-hook='set -e; R="$1"
    cp -a '"$VM_DIR"'/files/. "$R/"
    install -m 0700 -d "$R/root/.ssh"
    install -m 0600 '"$VM_KEY.pub"' "$R/root/.ssh/authorized_keys"
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

mkdir -p "$work/out"
cp "$(readlink -f "$work/rootfs/vmlinuz")" "$work/out/vmlinuz"
cp "$(readlink -f "$work/rootfs/initrd.img")" "$work/out/initrd.img"
truncate -s "$DISK_SIZE" "$work/out/disk.raw"
mkfs.ext4 -q -L e2e-vm -d "$work/rootfs" "$work/out/disk.raw" || die "mkfs.ext4 -d failed"
rm -rf "$OUT"
mv "$work/out" "$OUT"
# Older images of this script are superseded.
for old in "$VM_OUT"/image-*; do [ "$old" = "$OUT" ] || rm -rf "$old"; done
info "guest image $OUT (kernel $(file -b "$OUT/vmlinuz" 2>/dev/null | sed -n 's/.*version \([^ ]*\).*/\1/p'), disk $(du -h "$OUT/disk.raw" | cut -f1) used of $DISK_SIZE) in $((SECONDS - start))s"
echo "$OUT"
