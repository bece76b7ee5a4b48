#!/usr/bin/env bash
# Builds the kind base image offline and prints its name: a Debian bookworm root file system
# (mmdebstrap, Debian's packages) with systemd, containerd, runc and the CNI plugins, plus kind's own
# base-image files (entrypoint, systemd units, containerd config, ...) taken at build time from the
# sigs.k8s.io/kind module in the Go module cache, as kind's images/base/Dockerfile assembles them.
# It replaces kindest/base, which cannot be pulled here. Reused while its inputs are unchanged (the
# tag is a hash of them).
#
# Usage: hack/kind/base/build-base.sh [--force]
#
# Differences from kindest/base: Debian's containerd 1.6, runc and CNI plugins instead of kind's
# builds; crictl from sigs.k8s.io/cri-tools; a pre-entrypoint (files/entrypoint-offline) that
# remounts the cgroup file systems read-write when the node does not run --privileged (see
# hack/kind/docker-shim) and picks the overlayfs snapshotter; a ctr shim (files/ctr-shim) for
# `ctr info`, which kind's image build runs and containerd 1.6 lacks; the sandbox image of the
# tree's kubeadm; no CNI configuration (scripts/kind-up.sh writes one per node).
. "$(dirname "${BASH_SOURCE[0]}")/../../lib.sh"
. "$ROOT/hack/kind/lib.sh"
case ${1:-} in
  -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --force | '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
need_docker
HERE=$ROOT/hack/kind/base
pause=registry.k8s.io/pause:$(kubeadm_constant PauseVersion)
[ "$pause" != registry.k8s.io/pause: ] || die "cannot read kubeadm's PauseVersion from the tree: run make tree"
KIND_SRC=$(kind_src)
[ -d "$KIND_SRC" ] || (cd "$ROOT" && go mod download "sigs.k8s.io/kind@$KIND_VERSION") ||
  die "cannot download sigs.k8s.io/kind@$KIND_VERSION from the Go module proxy"
FILES=$KIND_SRC/images/base/files
[ -f "$FILES/usr/local/bin/entrypoint" ] || die "no kind base-image files in $FILES"

tag=$({ cat "$0" "$HERE"/files/*; echo "$KIND_VERSION $CRICTL_VERSION $pause"; } | sha256sum | cut -c1-12)
IMAGE=$BASE_IMAGE_REPO:$tag
if [ "${1:-}" != --force ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "kind base image $IMAGE is up to date"
  echo "$IMAGE"
  exit 0
fi

CRICTL=$(crictl_cmd)

# kind's package list (images/base/Dockerfile) without nfs-common / open-iscsi, plus Debian's
# containerd, runc and CNI plugins for the ones kind builds from source.
PKGS=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,containerd,runc,containernetworking-plugins
work=$(mktemp -d "$KIND_OUT/base.XXXXXX" 2>/dev/null || { mkdir -p "$KIND_OUT" && mktemp -d "$KIND_OUT/base.XXXXXX"; })
trap 'rm -rf "$work"' EXIT
log "building the kind base image $IMAGE: Debian bookworm root file system (mmdebstrap, about a minute)"
start=$SECONDS
# The hook replays the COPY and RUN steps of kind's images/base/Dockerfile on the root file system.
debian_rootfs "$work/rootfs.tar" --format=tar \
  --include="$PKGS" \
  --customize-hook='set -e; R="$1"; F='"$FILES"'; H='"$HERE"'
    install -m 0755 -D -t "$R/usr/local/bin" "$F"/usr/local/bin/*
    mv "$R/usr/local/bin/entrypoint" "$R/usr/local/bin/entrypoint.kind"
    install -m 0755 "$H/files/entrypoint-offline" "$R/usr/local/bin/entrypoint"
    install -m 0755 "$H/files/ctr-shim" "$R/usr/local/bin/ctr"
    install -m 0755 '"$CRICTL"' "$R/usr/local/bin/crictl"
    mkdir -p "$R/kind/bin" "$R/LICENSES" "$R/etc/kubernetes/manifests"
    install -m 0644 "$F"/kind/README.txt "$R/kind/"
    install -m 0755 -t "$R/kind/bin" "$F"/kind/bin/*
    install -m 0644 -t "$R/LICENSES" "$F"/LICENSES/*
    install -m 0644 -t "$R/etc" "$F"/etc/crictl.yaml
    install -m 0644 -D -t "$R/etc/containerd" "$F"/etc/containerd/config.toml
    install -m 0644 -D -t "$R/etc/default" "$F"/etc/default/kubelet
    install -m 0644 -D -t "$R/etc/sysctl.d" "$F"/etc/sysctl.d/*
    install -m 0644 -D -t "$R/etc/systemd/system" "$F"/etc/systemd/system/*.service "$F"/etc/systemd/system/*.slice
    install -m 0644 -D -t "$R/etc/systemd/system/kubelet.service.d" "$F"/etc/systemd/system/kubelet.service.d/*
    find "$R/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
    rm -f "$R"/lib/systemd/system/multi-user.target.wants/* "$R"/etc/systemd/system/*.wants/* \
      "$R"/lib/systemd/system/local-fs.target.wants/* "$R"/lib/systemd/system/sockets.target.wants/*udev* \
      "$R"/lib/systemd/system/sockets.target.wants/*initctl* "$R"/lib/systemd/system/basic.target.wants/*
    echo "ReadKMsg=no" >>"$R/etc/systemd/journald.conf"
    ln -sf /usr/lib/systemd/systemd "$R/sbin/init"
    chroot "$R" systemctl enable kubelet.service containerd.service undo-mount-hacks.service
    chroot "$R" systemctl mask systemd-binfmt.service
    # Debian installs to /usr; kind expects /usr/local and /opt/cni/bin.
    for b in containerd containerd-shim-runc-v2; do ln -sf /usr/bin/$b "$R/usr/local/bin/$b"; done
    ln -sf /usr/sbin/runc "$R/usr/local/sbin/runc"
    mkdir -p "$R/opt/cni/bin"
    for p in "$R"/usr/lib/cni/*; do ln -sf "/usr/lib/cni/${p##*/}" "$R/opt/cni/bin/"; done
    sed -i "s|sandbox_image = \"registry.k8s.io/pause:[^\"]*\"|sandbox_image = \"'"$pause"'\"|" "$R/etc/containerd/config.toml"
    chroot "$R" sh -c "ctr oci spec | jq '"'"'.hooks.createContainer[.hooks.createContainer | length] |= . + {\"path\": \"/kind/bin/mount-product-files.sh\"}'"'"' | jq '"'"'del(.process.rlimits)'"'"' >/etc/containerd/cri-base.json"
    rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/* "$R"/var/log/*.log "$R"/tmp/* "$R"/var/tmp/*
    : >"$R/etc/machine-id"'
info "root file system: $(du -h "$work/rootfs.tar" | cut -f1) in $((SECONDS - start))s"
# docker import --change rejects STOPSIGNAL on some engines: add it with a one-line build from the
# local image (no pull).
docker import \
  --change 'ENV container=docker' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
  "$work/rootfs.tar" "$IMAGE-import" >/dev/null
printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\n' "$IMAGE-import" | DOCKER_BUILDKIT=0 docker build -q -t "$IMAGE" - >/dev/null 2>&1 ||
  die "docker build of $IMAGE failed"
docker rmi "$IMAGE-import" >/dev/null
# Older base images of this script are superseded.
for old in $(docker images --format '{{.Repository}}:{{.Tag}}' "$BASE_IMAGE_REPO"); do
  [ "$old" = "$IMAGE" ] || docker rmi "$old" >/dev/null 2>&1 || true
done
info "image $IMAGE in $((SECONDS - start))s"
echo "$IMAGE"
