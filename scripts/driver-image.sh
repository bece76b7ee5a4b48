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
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; -*)
  echo "unknown option $1 (see --help)" >&2; exit 2 ;; esac
[ $# -le 1 ] || { echo "one driver directory at most (see --help)" >&2; exit 2; }

dir=${1:-$ROOT/drivers/example}
[ -d "$dir" ] || { echo "no directory $dir: give the directory of the driver's main package" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
name=$(basename "$dir")-driver
IMAGE=${IMAGE:-localhost/pluggable-rm/$name:dev}
mkdir -p "$ROOT/_output/bin" "$ROOT/_output/images"
echo "==> building _output/bin/$name from $dir" >&2
# Built inside the directory, so that a driver in a module of its own uses its own go.mod.
(cd "$dir" && CGO_ENABLED=0 go build -o "$ROOT/_output/bin/$name" .)
(cd "$ROOT" && go build -o _output/bin/ociimage ./hack/tools/ociimage)
echo "==> building image $IMAGE" >&2
"$ROOT/_output/bin/ociimage" -name "$IMAGE" -out "$ROOT/_output/images/$name.tar" \
  -file "$ROOT/_output/bin/$name=/$name" -entrypoint "/$name"
echo "    _output/images/$name.tar" >&2
