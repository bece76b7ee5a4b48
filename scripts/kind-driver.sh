#!/usr/bin/env bash
# Deploys a resource driver on the patched kind cluster (make kind-up first), to try or test it
# there: builds it with scripts/driver-image.sh, loads the image into the cluster's nodes (kind load
# image-archive, no registry), applies DRIVER_DIR/deploy/daemonset.yaml, restarts the DaemonSet so
# that it runs the new image, and waits for the rollout.
#
# Usage: scripts/kind-driver.sh [-h|--help] [DRIVER_DIR]   (default drivers/example)
#
# The DaemonSet must use the image scripts/driver-image.sh names (localhost/pluggable-rm/NAME-driver:dev
# for DRIVER_DIR .../NAME, or IMAGE) with imagePullPolicy: Never; drivers/minimal/deploy has one.
# Environment: KIND_CLUSTER (default pluggable-rm), IMAGE (see scripts/driver-image.sh).
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
. "$ROOT/hack/kind/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  -*) die "unknown option $1 (see --help)" ;;
esac
[ $# -le 1 ] || die "one driver directory at most (see --help)"
dir=${1:-$ROOT/drivers/example}
[ -d "$dir" ] || die "no directory $dir: give the directory of the driver's main package"
dir=$(cd "$dir" && pwd)
name=$(basename "$dir")-driver
manifest=$dir/deploy/daemonset.yaml
[ -f "$manifest" ] || die "no $manifest: the driver's DaemonSet, with its namespace (see drivers/example/deploy/daemonset.yaml)"
need_docker
kind_run get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER" ||
  die "no kind cluster $KIND_CLUSTER: run make kind-up first"
[ -f "$KIND_KUBECONFIG" ] || kind_run get kubeconfig --name "$KIND_CLUSTER" >"$KIND_KUBECONFIG"
kubectl_() { "$BIN/kubectl" --kubeconfig "$KIND_KUBECONFIG" "$@"; }
[ -x "$BIN/kubectl" ] || "$ROOT/hack/build.sh" kubectl

"$ROOT/scripts/driver-image.sh" "$dir"
log "loading _output/images/$name.tar into kind cluster $KIND_CLUSTER"
kind_run load image-archive --name "$KIND_CLUSTER" "$ROOT/_output/images/$name.tar" 2>&1 | sed 's/^/    /' >&2
applied=$(kubectl_ apply -f "$manifest" -o jsonpath='{.kind} {.metadata.namespace} {.metadata.name}')
read -r kind namespace ds <<<"$applied"
[ "${kind:-}" = DaemonSet ] || die "$manifest must hold one DaemonSet (it holds ${kind:-nothing})"
daemonset=daemonset/$ds
log "rolling out $daemonset in namespace $namespace"
# A new image under the same tag: restart the pods, so that they run it.
kubectl_ -n "$namespace" rollout restart "$daemonset" >/dev/null
kubectl_ -n "$namespace" rollout status "$daemonset" --timeout=180s >&2
