#!/usr/bin/env bash
# Builds the container images the e2e-node suite needs, offline (no Docker, no registry), and
# imports them into a containerd:
#   pause    registry.k8s.io/pause:3.10.2 (the sandbox image; name from the tree's
#            test/utils/image/manifest.go): the tree's build/pause/linux/pause.c, static, with gcc
#   busybox  registry.k8s.io/e2e-test-images/busybox:1.37.0-2 (the manifest's BusyBox): Debian's
#            busybox-static binary with a symlink in /bin for each applet
#
# Usage: images.sh [--build-only | --prebuilt] [--verify] DIR|unix:///path/to/containerd.sock
#   DIR            a containerd started by containerd.sh (socket DIR/containerd.sock)
#   --build-only   only write the tarballs ($E2E_OUT/images/*.tar), import nothing
#   --prebuilt     build nothing: import every tarball in $E2E_OUT/images (a host the remote
#                  runner sent them to, which needs neither the tree nor gcc nor Go)
#   --verify       after the import, run each image once with `ctr run` and show its output
#
# Images go into containerd namespace k8s.io, where the CRI (and so the kubelet) sees them.
# Needs gcc, Go (for hack/tools/ociimage) and Debian's busybox-static (installed when missing).
set -o errexit -o nounset -o pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

build_only=false
prebuilt=false
verify=false
target=
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --build-only) build_only=true ;;
    --prebuilt) prebuilt=true ;;
    --verify) verify=true ;;
    -*) usage >&2; exit 2 ;;
    *) [ -z "$target" ] || { usage >&2; exit 2; }; target=$1 ;;
  esac
  shift
done
$build_only || [ -n "$target" ] || { usage >&2; exit 2; }
! { $build_only && $prebuilt; } || die "--build-only and --prebuilt exclude each other"
RUN_OPTS=()
case $target in
  unix://*) SOCK=${target#unix://} ;;
  '') SOCK= ;;
  *)
    SOCK=$(abs_dir "$target")/containerd.sock
    # The runc root of containerd.sh's CRI runtime and a fifo dir under DIR, so that `ctr run`
    # leaves nothing in /run/containerd.
    RUN_OPTS=(--runc-root "$(abs_dir "$target")/state/runc" --fifo-dir "$(abs_dir "$target")/state/fifo")
    ;;
esac

IMAGES=$E2E_OUT/images

if $prebuilt; then
  need_root
  [ -S "$SOCK" ] || die "no containerd socket at $SOCK (start one with containerd.sh start DIR)"
  shopt -s nullglob
  tars=("$IMAGES"/*.tar)
  [ ${#tars[@]} -gt 0 ] || die "no image tarballs in $IMAGES (--prebuilt imports what images.sh --build-only wrote there)"
  log "importing ${#tars[@]} prebuilt image(s) into containerd at $SOCK (namespace k8s.io)"
  for tar in "${tars[@]}"; do
    ctr --address "$SOCK" -n k8s.io images import "$tar" >/dev/null || die "ctr cannot import $tar"
    info "imported ${tar##*/}"
  done
  exit 0
fi

WORK=$IMAGES/build
mkdir -p "$IMAGES" "$WORK"
MKIMAGE=$(project_tool ociimage)
PAUSE_IMAGE=$(pause_image)
BUSYBOX_IMAGE=$(busybox_image)
# The tarballs are named after the image references, so that another name builds another one.
PAUSE_TAR=$IMAGES/$(tr -c 'A-Za-z0-9.\n-' '_' <<<"$PAUSE_IMAGE").tar
BUSYBOX_TAR=$IMAGES/$(tr -c 'A-Za-z0-9.\n-' '_' <<<"$BUSYBOX_IMAGE").tar

# up_to_date TAR INPUT...: TAR exists and is newer than every input (the image is reused).
up_to_date() {
  local tar=$1 input
  shift
  [ -s "$tar" ] || return 1
  for input in "$@" "$MKIMAGE" "$0"; do
    [ "$tar" -nt "$input" ] || return 1
  done
}

build_pause() {
  local src=$TREE/build/pause/linux/pause.c version
  [ -f "$src" ] || die "$src not found: assemble the tree first (or set TREE)"
  if up_to_date "$PAUSE_TAR" "$src"; then
    info "$PAUSE_IMAGE: $PAUSE_TAR is up to date"
    return 0
  fi
  command -v gcc >/dev/null || die "gcc is not on PATH (Debian: apt-get install gcc libc6-dev)"
  version=${PAUSE_IMAGE##*:}
  log "building $PAUSE_IMAGE from ${src#"$TREE"/}"
  mkdir -p "$WORK/pause"
  # The flags of build/pause/Makefile (CFLAGS), for the host's architecture.
  gcc -Os -Wall -Werror -static "-DVERSION=v$version-e2e" -o "$WORK/pause/pause" "$src"
  "$MKIMAGE" -name "$PAUSE_IMAGE" -out "$PAUSE_TAR" \
    -file "$WORK/pause/pause=/pause" -entrypoint /pause -user 65535:65535
  info "$PAUSE_TAR ($(du -h "$PAUSE_TAR" | cut -f1))"
}

build_busybox() {
  apt_install /bin/busybox busybox-static
  local bb=/bin/busybox applet args=()
  ldd "$bb" >/dev/null 2>&1 && die "$bb is dynamically linked: install Debian's busybox-static, not busybox"
  if up_to_date "$BUSYBOX_TAR" "$bb"; then
    info "$BUSYBOX_IMAGE: $BUSYBOX_TAR is up to date"
    return 0
  fi
  log "building $BUSYBOX_IMAGE from $bb ($("$bb" | sed -n 1p))"
  mkdir -p "$WORK/busybox"
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/home:/bin/false' >"$WORK/busybox/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$WORK/busybox/group"
  args+=(-file "$bb=/bin/busybox" -file "$WORK/busybox/passwd=/etc/passwd" -file "$WORK/busybox/group=/etc/group")
  for applet in $("$bb" --list); do
    case $applet in busybox | */*) continue ;; esac
    args+=(-symlink "busybox=/bin/$applet")
  done
  for d in /tmp /root /home /var /proc /sys /dev; do args+=(-dir "$d"); done
  "$MKIMAGE" -name "$BUSYBOX_IMAGE" -out "$BUSYBOX_TAR" -cmd sh \
    -env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${args[@]}"
  info "$BUSYBOX_TAR ($(du -h "$BUSYBOX_TAR" | cut -f1), $(("${#args[@]}" / 2)) entries)"
}

import() {
  local tar=$1 image=$2
  ctr --address "$SOCK" -n k8s.io images import "$tar" >/dev/null
  local images
  images=$(ctr --address "$SOCK" -n k8s.io images list -q)
  grep -qxF "$image" <<<"$images" || die "$image is not in containerd after importing $tar"
  info "imported $image"
}

build_pause
build_busybox
$build_only && exit 0

need_root
[ -S "$SOCK" ] || die "no containerd socket at $SOCK (start one with containerd.sh start DIR)"
log "importing into containerd at $SOCK (namespace k8s.io)"
import "$PAUSE_TAR" "$PAUSE_IMAGE"
import "$BUSYBOX_TAR" "$BUSYBOX_IMAGE"

if $verify; then
  log "running $PAUSE_IMAGE: /pause -v"
  ctr --address "$SOCK" -n k8s.io run "${RUN_OPTS[@]}" --rm "$PAUSE_IMAGE" "e2e-images-pause-$$" /pause -v | sed 's/^/    /'
  log "running $BUSYBOX_IMAGE"
  ctr --address "$SOCK" -n k8s.io run "${RUN_OPTS[@]}" --rm "$BUSYBOX_IMAGE" "e2e-images-busybox-$$" \
    sh -c 'echo ok; cat /proc/self/status | grep Cpus_allowed_list; ls /bin | wc -l' | sed 's/^/    /'
fi
