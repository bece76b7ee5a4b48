#!/usr/bin/env bash
# Runs the cluster e2e specs of the series (test/e2e/node/resource_driver.go, built into upstream's
# e2e.test) against a cluster (make e2e-cluster): a Deployment of driver pods over two nodes,
# scheduling by declared node feature, a rolling update of the driver, a drain, what kubectl and
# events show, DNS and Services. Prints `N passed, N failed, N skipped`; a spec that skips fails
# the run.
#   Without KUBECONFIG: brings up a kind cluster of the patched build with a control plane and two
#   workers (kind-config/control-plane-two-workers.yaml, scripts/kind-up.sh, offline), loads the
#   helper images, runs the specs and removes the cluster again, also on failure.
#   With KUBECONFIG: runs them against that cluster (see README, "Run the cluster e2e specs on your
#   own cluster" for what its nodes need). The specs create and delete a namespace of their own,
#   roll the driver's DaemonSet and roll it back, and cordon and uncordon a node.
#
# Usage: scripts/e2e-cluster.sh [-h|--help]
#
# Environment:
#   KUBECONFIG            a cluster to run against (default: a kind cluster of its own)
#   FOCUS, SKIP           Ginkgo regexps (default focus: [Feature:PluggableResourceManagement])
#   DRIVER_NAME           the driver the specs name (default cpu.example.com)
#   DRIVER_DAEMONSET      NAMESPACE/NAME of its DaemonSet (default kube-system/example-resource-driver)
#   DRIVER_UPDATE_IMAGE   the image of the rolling update (kind: the example driver under a new tag)
#   PODRESOURCES_IMAGE    the pod resources lister (kind: localhost/pluggable-rm/podresources:dev,
#                         built from hack/tools/podresources; on your cluster, push it to a registry)
#   KIND_CLUSTER          the kind cluster's name (default pluggable-rm-e2e)
#   KEEP_CLUSTER=1        leave the kind cluster running (make kind-down KIND_CLUSTER=... removes it)
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unknown argument $1 (see --help; set KUBECONFIG, FOCUS, ... in the environment)" ;;
esac
FOCUS=${FOCUS:-'\[Feature:PluggableResourceManagement\]'}
SKIP=${SKIP:-}
DRIVER_NAME=${DRIVER_NAME:-cpu.example.com}
DRIVER_DAEMONSET=${DRIVER_DAEMONSET:-kube-system/example-resource-driver}
DRIVER_UPDATE_IMAGE=${DRIVER_UPDATE_IMAGE:-}
PODRESOURCES_IMAGE=${PODRESOURCES_IMAGE:-localhost/pluggable-rm/podresources:dev}
export KIND_CLUSTER=${KIND_CLUSTER:-pluggable-rm-e2e}
export KIND_KUBECONFIG=$ROOT/_output/kind/kubeconfig-$KIND_CLUSTER
. "$ROOT/hack/kind/lib.sh"
start=$SECONDS

"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" e2e.test kubectl
summary=$(project_tool junitsummary)

if [ -n "${KUBECONFIG:-}" ]; then
  kubeconfig=$KUBECONFIG
  [ -f "$kubeconfig" ] || die "KUBECONFIG=$kubeconfig: no such file"
  log "running against the cluster of $kubeconfig"
else
  need_docker
  kubeconfig=$KIND_KUBECONFIG
  if [ "${KEEP_CLUSTER:-}" != 1 ]; then
    trap '"$ROOT/scripts/kind-down.sh"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
  fi
  KIND_CONFIG=${KIND_CONFIG:-$ROOT/kind-config/control-plane-two-workers.yaml} "$ROOT/scripts/kind-up.sh"

  log "helper images: the pod resources lister, and the example driver under a new tag for the rolling update"
  images=$ROOT/_output/images
  mkdir -p "$images"
  ociimage=$(project_tool ociimage)
  "$ociimage" -name "$PODRESOURCES_IMAGE" -out "$images/podresources.tar" \
    -file "$(project_tool podresources)=/podresources" -entrypoint /podresources >/dev/null
  # kind-up.sh built _output/bin/example-driver: the same driver, as a new image.
  DRIVER_UPDATE_IMAGE=${DRIVER_UPDATE_IMAGE:-${DRIVER_IMAGE%:*}:update}
  "$ociimage" -name "$DRIVER_UPDATE_IMAGE" -out "$images/example-driver-update.tar" \
    -file "$BIN/example-driver=/example-driver" -entrypoint /example-driver >/dev/null
  for tar in podresources.tar example-driver-update.tar; do
    kind_run load image-archive --name "$KIND_CLUSTER" "$images/$tar" 2>&1 | sed 's/^/    /' >&2
  done
fi

report=$ROOT/_output/e2e/cluster/$(date +%Y%m%d-%H%M%S)
mkdir -p "$report"
args=(
  --kubeconfig="$kubeconfig" --provider=skeleton --kubectl-path="$BIN/kubectl" --report-dir="$report"
  --resource-driver.name="$DRIVER_NAME" --resource-driver.daemonset="$DRIVER_DAEMONSET"
  --resource-driver.podresources-image="$PODRESOURCES_IMAGE"
  --ginkgo.focus="$FOCUS" --ginkgo.no-color --ginkgo.timeout=1h
)
[ -z "$DRIVER_UPDATE_IMAGE" ] || args+=(--resource-driver.update-image="$DRIVER_UPDATE_IMAGE")
[ -z "$SKIP" ] || args+=(--ginkgo.skip="$SKIP")
log "e2e.test (FOCUS=$FOCUS${SKIP:+ SKIP=$SKIP}); its log: $report/e2e.log"
rc=0
"$BIN/e2e.test" "${args[@]}" >"$report/e2e.log" 2>&1 || rc=$?
reports=()
mapfile -t reports < <(find "$report" -name 'junit*.xml' | sort)
if [ ${#reports[@]} = 0 ]; then
  tail -n 30 "$report/e2e.log" >&2
  die "e2e.test wrote no JUnit report (exit $rc): see $report/e2e.log"
fi
# Every spec the focus selects must run: a skip here means the cluster lacks what the specs need.
"$summary" -must-run . "${reports[@]}" | tee "$report/summary.txt" | sed 's/^/    /' >&2 || rc=1
log "make e2e-cluster $([ "$rc" = 0 ] && echo passed || echo "FAILED (e2e.test exit $rc)") in $((SECONDS - start))s; report in $report"
exit "$rc"
