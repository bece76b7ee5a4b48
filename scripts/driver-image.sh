#!/usr/bin/env bash
# Builds a resource driver as a static host binary and as a container image tarball, offline (no
# Docker, no registry). Default: the example driver, drivers/example ->
# _output/bin/example-driver, _output/images/example-driver.tar, image
# localhost/pluggable-rm/example-driver:dev. Another driver's directory (a main package, in this
# repository or in a module of its own) gives NAME-driver the same way, NAME being the directory's
# base name (drivers/minimal -> minimal-driver).
#
# Usage: scripts/driver-image.sh [DRIVER_DIR]
#   then: ctr -n k8s.io images import _output/images/NAME-driver.tar
#     or: kind load image-archive _output/images/NAME-driver.tar --name CLUSTER
# Environment: IMAGE overrides the image name.
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
case ${1:-} in
  -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option $1 (see --help)" ;;
esac
[ $# -le 1 ] || die "one driver directory at most (see --help)"

dir=${1:-$ROOT/drivers/example}
[ -d "$dir" ] || die "no directory $dir: give the directory of the driver's main package"
dir=$(cd "$dir" && pwd)
name=$(basename "$dir")-driver
IMAGE=${IMAGE:-localhost/pluggable-rm/$name:dev}
mkdir -p "$ROOT/_output/bin" "$ROOT/_output/images"
log "building _output/bin/$name from $dir"
# Built inside the directory, so that a driver in a module of its own uses its own go.mod.
(cd "$dir" && CGO_ENABLED=0 go build -o "$ROOT/_output/bin/$name" .)
OCIIMAGE=$(project_tool ociimage)
log "building image $IMAGE"
"$OCIIMAGE" -name "$IMAGE" -out "$ROOT/_output/images/$name.tar" \
  -file "$ROOT/_output/bin/$name=/$name" -entrypoint "/$name"
info "_output/images/$name.tar"
