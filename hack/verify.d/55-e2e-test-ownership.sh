#!/usr/bin/env bash
# Upstream's hack/verify-e2e-test-ownership.sh (every spec starts with [sig-foo], no spec has more
# than one [sig-...] tag) on e2e.test, which holds the series' cluster specs, and on the node e2e
# suite, which holds its node specs: upstream's script checks test/e2e's e2e.test only. e2e_node.test is built from the tree and its specs are listed by a
# ginkgo dry run; upstream's dump (e2e.test --spec-dump, written by test/e2e's ReportAfterSuite,
# which e2e_node lacks) is one SpecReport a line, which is what ginkgo's --json-report holds, so
# upstream's script evaluates that. The script runs from a copy whose only change is where it reads
# the binaries and the dump (REUSE_BUILD_OUTPUT=y), so nothing is written into the tree.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
apt_install jq jq
upstream_script_env
TREE=$(cd "$TREE" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/prm-e2e-ownership.XXXXXX")
trap 'rm -rf "$work"' EXIT

# hack/build.sh's e2e_node.test: the binary make test runs, built once (cache outside the checkout).
log "building e2e_node.test (hack/build.sh)"
nice -n 19 "$ROOT/hack/build.sh" e2e_node.test >/dev/null

# The suite refuses to start without a node name; a dry run runs no spec.
(cd "$work" && "$BIN/e2e_node.test" --ginkgo.dry-run --ginkgo.no-color --ginkgo.json-report="$work/report.json" \
  --node-name=dry-run >"$work/dry-run.log" 2>&1) || { tail -n 30 "$work/dry-run.log" >&2; die "the dry run of e2e_node.test failed"; }
jq -c '.[].SpecReports[]' "$work/report.json" >"$work/specsummaries.json"
[ -s "$work/specsummaries.json" ] || { tail -n 30 "$work/dry-run.log" >&2; die "the dry run listed no spec"; }
info "$(wc -l <"$work/specsummaries.json") specs"

# e2e.test, which holds the series' cluster specs, writes upstream's dump itself (a dry run).
log "building e2e.test (hack/build.sh)"
"$ROOT/hack/build.sh" e2e.test >/dev/null
(cd "$work" && "$BIN/e2e.test" --ginkgo.dry-run --ginkgo.no-color --spec-dump="$work/e2e-specsummaries.json" \
  >"$work/e2e-dry-run.log" 2>&1) || { tail -n 30 "$work/e2e-dry-run.log" >&2; die "the dry run of e2e.test failed"; }
info "e2e.test: $(wc -l <"$work/e2e-specsummaries.json") specs"

# check BINARY DUMP: upstream's script, from a copy that reads DUMP (the specs of BINARY).
script=$TREE/hack/verify-e2e-test-ownership.sh
check() {
  local binary=$1 dump=$2 copy=$work/verify-e2e-test-ownership-${1##*/}.sh rc=0
  sed -e "s#\${KUBE_ROOT}/_output/specsummaries.json#$dump#" \
    -e "s#\${KUBE_ROOT}/_output/bin/ginkgo#$binary#" \
    -e "s#\${KUBE_ROOT}/_output/bin/e2e.test#$binary#" \
    -e "s#^KUBE_ROOT=.*#KUBE_ROOT=$TREE#" "$script" >"$copy"
  [ "$(grep -c -e "$dump" -e "$binary" "$copy")" -eq 3 ] || die "upstream's $script changed: cannot point it at the spec dump"
  REUSE_BUILD_OUTPUT=y bash "$copy" || rc=$?
  [ $rc -eq 0 ] || die "upstream's hack/verify-e2e-test-ownership.sh fails on ${binary##*/} (exit $rc; findings above)"
}
check "$BIN/e2e_node.test" "$work/specsummaries.json"
check "$BIN/e2e.test" "$work/e2e-specsummaries.json"
