#!/usr/bin/env bash
# Prints the list of checks .ci/run performs, one a line, from the same sources the scripts run
# them from: every hack/verify.d check of make verify; for make test, every package whose upstream
# unit or integration tests run, the fuzz targets (their seed corpora run as unit tests in CI), the
# project's Go packages, the drivers of the sanity suite, and the Ginkgo selections of the node e2e
# suite, the cluster e2e specs and the multi-NUMA guest lane. Two runs can be compared with diff.
#
# Usage: hack/ci-checks.sh        (needs the tree: make tree)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case ${1:-} in
-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac
[ -d "$TREE/.git" ] || die "no tree at $TREE: run make tree first"

echo "make verify: the series applies to upstream $KUBE_VERSION and exports to patches/ and staging/ byte for byte"
for check in "$VERIFY_D"/*.sh; do echo "make verify: ${check##*/}"; done
while read -r d; do
  case $d in
  ./test/integration/*) echo "make test: upstream integration tests $d" ;;
  *) echo "make test: upstream unit tests $d" ;;
  esac
done < <(series_test_dirs)
while read -r d name; do echo "make test: fuzz target $name ($d): seed corpus (FUZZTIME=0 in CI)"; done < <(series_fuzz_targets)
(cd "$ROOT" && go list ./... 2>/dev/null) | sed 's/^/make test: the project'"'"'s Go tests /'
echo "make test: the project's Go tests hack/tools/golangci-lint/sorted/..."
for d in example minimal test-driver; do echo "make test: driver sanity suite against $d"; done
echo "make test: node e2e suite, focus $(sed -n "s/^DEFAULT_FOCUS='\(.*\)'$/\1/p" "$ROOT/scripts/e2e-node.sh"), skip $(sed -n "s/^SKIP=\${SKIP-'\(.*\)'}$/\1/p" "$ROOT/scripts/e2e-node.sh")"
echo "make test: cluster e2e specs on kind, focus $(sed -n "s/^FOCUS=\${FOCUS:-'\(.*\)'}$/\1/p" "$ROOT/scripts/e2e-cluster.sh")"
echo "make test: multi-NUMA guest lane (E2E_NODE_VM=1), focus $(sed -n 's/.*FOCUS="\${E2E_NODE_VM_FOCUS:-\(.*\)}" SKIP=.*/\1/p' "$ROOT/hack/test.sh")"
