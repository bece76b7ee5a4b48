#!/usr/bin/env bash
# Runs the node e2e suite on this machine (make e2e-node): builds the patched kubelet and
# e2e_node.test, installs containerd, runc and the CNI plugins from Debian when missing, starts a
# private containerd with offline-built images, runs the suite with the PluggableResourceManagement
# gate on (services mode: etcd and kube-apiserver inside the test process, the kubelet as its child),
# tears everything down, and prints `N passed, N failed, N skipped`.
#
# Usage: scripts/e2e-node.sh [-h|--help]
#
# Environment:
#   FOCUS   Ginkgo focus regexp (default: the resource manager suite and upstream's CPU Manager
#           specs, which run against the patched kubelet with the static policy)
#   SKIP    Ginkgo skip regexp (default: [Benchmark], the pod start latency benchmark of make bench;
#           empty: none)
#   E2E_NODE_DIR  work directory while the suite runs (default /tmp/e2e-node; must not exist)
#
# The JUnit XML and the logs (test log, kubelet log, kubelet configs) are kept in
# _output/e2e/e2e-node/<time>/. Needs root, cgroups and a kernel that runs containers.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../e2e-node/lib.sh
. "$ROOT/e2e-node/lib.sh"

case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  '') ;;
  *) die "unexpected argument $1 (see --help; set FOCUS / SKIP in the environment)" ;;
esac

DEFAULT_FOCUS='\[Feature:PluggableResourceManagement\]|\[Feature:CPUManager\]'
FOCUS=${FOCUS:-$DEFAULT_FOCUS}
SKIP=${SKIP-'\[Benchmark\]'}
need_root

"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" kubelet e2e_node.test

keep=$E2E_OUT/e2e-node/$(date +%Y%m%d-%H%M%S)
args=(--dir "${E2E_NODE_DIR:-/tmp/e2e-node}")
[ -z "$SKIP" ] || args+=(--skip "$SKIP")
rc=0
KEEP_DIR=$keep E2E_NODE_TEST=$BIN/e2e_node.test "$E2E_DIR/run-e2e-node.sh" "${args[@]}" "$FOCUS" || rc=$?

# The closing line, from the JUnit report. Ginkgo lists every spec of the suite there; the ones
# the focus left out are "skipped" with the bare message "skipped", the ones that skipped
# themselves (e.g. too few CPUs) say why.
mapfile -t reports < <(find "$keep" -name 'junit*.xml' 2>/dev/null | sort)
if [ ${#reports[@]} = 0 ]; then
  die "the suite wrote no JUnit report (it did not start, or was killed): see the logs in $keep"
fi
"$(project_tool junitsummary)" "${reports[@]}" || rc=$((rc == 0 ? 1 : rc))
log "JUnit report and logs: $keep"
exit "$rc"
