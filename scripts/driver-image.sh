#!/usr/bin/env bash
# Builds the example resource driver as a static host binary and as a container image tarball,
# offline (no Docker, no registry): _output/bin/example-driver and _output/images/example-driver.tar,
# image name localhost/pluggable-rm/example-driver:dev.
#
# Usage: scripts/driver-image.sh
#   then: ctr -n k8s.io images import _output/images/example-driver.tar
#     or: kind load image-archive _output/images/example-driver.tar
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

IMAGE=${IMAGE:-localhost/pluggable-rm/example-driver:dev}
mkdir -p "$ROOT/_output/bin" "$ROOT/_output/images"
cd "$ROOT"
echo "==> building _output/bin/example-driver" >&2
CGO_ENABLED=0 go build -o _output/bin/example-driver ./drivers/example
go build -o _output/bin/ociimage ./hack/tools/ociimage
echo "==> building image $IMAGE" >&2
_output/bin/ociimage -name "$IMAGE" -out _output/images/example-driver.tar \
  -file _output/bin/example-driver=/example-driver -entrypoint /example-driver
echo "    _output/images/example-driver.tar" >&2
