#!/usr/bin/env bash
# Builds the kind node image of the patched build, offline, and prints its name:
#   1. the patched binaries (kubeadm, kubelet, kubectl, kube-apiserver, kube-controller-manager,
#      kube-scheduler, kube-proxy) with hack/build.sh;
#   2. the images the node needs, without Docker pulls: the control-plane and kube-proxy images from
#      those binaries, etcd (from its Go module, static), coredns (from its Go module), pause (the
#      tree's pause.c) and busybox (Debian's busybox-static, for the demo), at the names and
#      versions the tree's kubeadm and the e2e manifests use (the example driver's image is loaded
#      by scripts/kind-up.sh with kind load image-archive);
#   3. a kubernetes-server-linux-amd64.tar.gz-style release tarball of all that (every image inside
#      kube-apiserver.tar, so that kind pulls none);
#   4. `kind build node-image` of it on the offline base image (hack/kind/base/build-base.sh).
# Each step is reused while its inputs are unchanged.
#
# Usage: scripts/kind-image.sh [-h|--help]
#
# kind's default CNI (kindnetd) and storage provisioner images cannot be had offline: the node image
# has neither; scripts/kind-up.sh configures a bridge CNI per node, and kind installs a host-path
# StorageClass when its local-path manifest is absent.
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unknown argument $1 (see --help)" ;;
esac
need_docker

"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy
BASE=$("$ROOT/hack/kind/base/build-base.sh")

version=$("$BIN/kubelet" --version | awk '{print $2}')
tag=${version//+/_}
images=$KIND_OUT/images
mkdir -p "$images"
OCIIMAGE=$(project_tool ociimage)
IMAGEARCHIVE=$(project_tool imagearchive)

etcd_image=registry.k8s.io/etcd:$(kubeadm_constant DefaultEtcdVersion)
coredns_version=$(kubeadm_constant CoreDNSVersion)
coredns_image=registry.k8s.io/coredns/coredns:$coredns_version
etcd_dir=$("$ROOT/hack/install-etcd.sh")
coredns=$(go_tool coredns "github.com/coredns/coredns@$coredns_version")
apt_install /usr/sbin/nft nftables
apt_install /usr/sbin/xtables-legacy-multi iptables
apt_install /bin/busybox busybox-static
command -v gcc >/dev/null || die "gcc is not on PATH (Debian: apt-get install gcc libc6-dev)"

# The node image is named after the version and a hash of every input: the binaries, the images'
# programs and the host packages they take files from, the code that builds them, the base image
# and kind. When the Docker engine has it, nothing below is built again.
inputs=$({
  for b in kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
    sha256sum "$BIN/$b" | sed "s|$BIN/||"
  done
  sha256sum "$etcd_dir/etcd" "$coredns" | sed -e "s|$etcd_dir/||" -e "s|$coredns|coredns|"
  echo "$version $BASE $KIND_VERSION $etcd_image $coredns_image $(gcc -dumpfullversion)"
  dpkg-query -W -f '${Package} ${Version}\n' nftables iptables busybox-static libc6 libnftables1 libxtables12 2>/dev/null || true
  (cd "$ROOT" && find scripts/kind-image.sh hack/kind/lib.sh e2e-node/images.sh e2e-node/lib.sh hack/tools/ociimage \
    hack/tools/imagearchive -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
  sha256sum "$TREE/build/pause/linux/pause.c" "$TREE/test/utils/image/manifest.go" | sed "s|$TREE/||"
} | sha256sum | cut -c1-10)
NODE=$NODE_IMAGE_REPO:$tag-$inputs
if docker image inspect "$NODE" >/dev/null 2>&1; then
  log "kind node image $NODE is up to date"
  info "cache: reused kind node image (key $inputs)"
  echo "$NODE"
  exit 0
fi

log "images for kubeadm $version (etcd, coredns, pause, kube-proxy) and the demo (busybox)"
"$OCIIMAGE" -name "$etcd_image" -out "$images/etcd.tar" -file "$etcd_dir/etcd=/usr/local/bin/etcd" \
  -symlink /usr/local/bin/etcd=/usr/bin/etcd -dir /var/lib/etcd -dir /tmp >/dev/null
"$OCIIMAGE" -name "$coredns_image" -out "$images/coredns.tar" -file "$coredns=/coredns" -entrypoint /coredns >/dev/null
info "$etcd_image, $coredns_image"
# pause and busybox, as the node e2e harness builds them.
"$ROOT/e2e-node/images.sh" --build-only
pause_tar=$(ls "$ROOT"/_output/e2e/images/registry.k8s.io_pause_*.tar)
busybox_tar=$(ls "$ROOT"/_output/e2e/images/registry.k8s.io_e2e-test-images_busybox_*.tar)

# kube-proxy programs iptables / nftables: its image carries the host's nft and iptables (legacy)
# binaries with their libraries, and the libraries of iptables' extensions, which it loads at run
# time (the statistic match, which spreads a Service over several endpoints, needs libm: without
# it every rule sync fails and a Service with two endpoints, such as kube-dns, answers nothing).
proxy_args=(-file /usr/sbin/nft=/usr/sbin/nft -file /usr/sbin/xtables-legacy-multi=/usr/sbin/xtables-legacy-multi
  -file "$(readlink -f /lib64/ld-linux-x86-64.so.2)=/lib64/ld-linux-x86-64.so.2")
for lib in $({ ldd /usr/sbin/nft; ldd /usr/sbin/xtables-legacy-multi; ldd /usr/lib/x86_64-linux-gnu/xtables/*.so; } |
  awk '/=> \//{print $3}' | sort -u); do
  # Under /usr/lib: the image's /lib is a link to it, as on Debian.
  real=$(readlink -f "$lib") so=/usr/lib/x86_64-linux-gnu/${lib##*/}
  proxy_args+=(-file "$real=$real")
  [ "$real" = "$so" ] || proxy_args+=(-symlink "$real=$so")
done
for x in /usr/lib/x86_64-linux-gnu/xtables/*.so; do proxy_args+=(-file "$x=$x"); done
for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
  for v in "" -legacy; do proxy_args+=(-symlink "xtables-legacy-multi=/usr/sbin/$t$v"); done
done

log "release tarball of $version"
work=$(mktemp -d "$KIND_OUT/release.XXXXXX")
trap 'rm -rf "$work"' EXIT
sb=$work/kubernetes/server/bin
mkdir -p "$sb"
echo "$version" >"$work/kubernetes/version"
for b in kubeadm kubelet kubectl; do install -m 0755 "$BIN/$b" "$sb/$b"; done
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  "$OCIIMAGE" -name "registry.k8s.io/$c-amd64:$tag" -out "$work/$c.tar" \
    -file "$BIN/$c=/usr/local/bin/$c" -dir /tmp -entrypoint "/usr/local/bin/$c" >/dev/null
done
mv "$work/kube-controller-manager.tar" "$work/kube-scheduler.tar" "$sb/"
"$OCIIMAGE" -name "registry.k8s.io/kube-proxy-amd64:$tag" -out "$sb/kube-proxy.tar" "${proxy_args[@]}" \
  -file "$BIN/kube-proxy=/usr/local/bin/kube-proxy" -symlink usr/lib=/lib -dir /tmp -dir /run -dir /var/lib \
  -entrypoint /usr/local/bin/kube-proxy >/dev/null
# kind's build requires its CNI and storage images whatever the cluster config says: their names
# ride on the pause image (never run: no kindnetd, no local-path manifest).
placeholders=$(grep -ho 'docker.io/kindest/[a-z-]*:v[0-9a-f-]*' "$(kind_src)"/pkg/build/nodeimage/const_cni.go \
  "$(kind_src)"/pkg/build/nodeimage/const_storage.go | sort -u | paste -sd,)
"$IMAGEARCHIVE" -out "$sb/kube-apiserver.tar" "$work/kube-apiserver.tar" "$images/etcd.tar" \
  "$images/coredns.tar" "$busybox_tar" "$pause_tar=$placeholders" >/dev/null
tar -C "$work" -cf - kubernetes | gzip -1 >"$KIND_OUT/kubernetes-server-linux-amd64.tar.gz"
info "$KIND_OUT/kubernetes-server-linux-amd64.tar.gz ($(du -h "$KIND_OUT/kubernetes-server-linux-amd64.tar.gz" | cut -f1))"

decide_docker_shim "$BASE"
log "kind build node-image $NODE (base $BASE)"
before=$(ls -d /tmp/k8s-tar-extract-* 2>/dev/null || true)
kind_run build node-image --image "$NODE-stage" --base-image "$BASE" "$KIND_OUT/kubernetes-server-linux-amd64.tar.gz" 2>&1 |
  sed 's/^/    /' >&2
# kind leaves its extraction directory behind.
for d in /tmp/k8s-tar-extract-*; do
  [ -e "$d" ] && [[ " $before " != *" $d "* ]] && rm -rf "$d"
done
docker image inspect "$NODE-stage" >/dev/null 2>&1 || die "kind build node-image failed"
# Without its local-path manifest, kind installs a plain host-path StorageClass.
printf 'FROM %s\nRUN rm -f /kind/manifests/default-storage.yaml\n' "$NODE-stage" |
  DOCKER_BUILDKIT=0 docker build -q -t "$NODE" - >/dev/null 2>&1 ||
  die "docker build of $NODE failed"
docker rmi "$NODE-stage" >/dev/null
for old in $(docker images --format '{{.Repository}}:{{.Tag}}' "$NODE_IMAGE_REPO"); do
  [ "$old" = "$NODE" ] || docker rmi "$old" >/dev/null 2>&1 || true
done
info "node image $NODE"
info "cache: built kind node image (key $inputs)"
echo "$NODE"
