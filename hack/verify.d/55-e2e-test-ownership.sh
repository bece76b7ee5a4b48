#!/usr/bin/env bash
# Upstream's hack/verify-e2e-test-ownership.sh (every spec starts with [sig-foo], no spec has more
# than one [sig-...] tag) on the node e2e suite, which holds the series' specs: upstream's script
# checks test/e2e's e2e.test only. e2e_node.test is built from the tree and its specs are listed by a
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

log "building e2e_node.test from the tree"
start=$(date +%s)
# Flags as hack/build.sh's (cgo, -trimpath, tags), so the Go build cache is shared with make test's build.
(cd "$TREE" && CGO_ENABLED=1 nice -n 19 go test -c -trimpath -tags selinux,notest,grpcnotrace -o "$work/e2e_node.test" ./test/e2e_node)
info "built in $(($(date +%s) - start))s"
# The suite refuses to start without a node name; a dry run runs no spec.
(cd "$work" && ./e2e_node.test --ginkgo.dry-run --ginkgo.no-color --ginkgo.json-report="$work/report.json" \
  --node-name=dry-run >"$work/dry-run.log" 2>&1) || { tail -n 30 "$work/dry-run.log" >&2; die "the dry run of e2e_node.test failed"; }
jq -c '.[].SpecReports[]' "$work/report.json" >"$work/specsummaries.json"
[ -s "$work/specsummaries.json" ] || { tail -n 30 "$work/dry-run.log" >&2; die "the dry run listed no spec"; }
info "$(wc -l <"$work/specsummaries.json") specs"

script=$TREE/hack/verify-e2e-test-ownership.sh
sed -e "s#\${KUBE_ROOT}/_output/specsummaries.json#$work/specsummaries.json#" \
  -e "s#\${KUBE_ROOT}/_output/bin/ginkgo#$work/e2e_node.test#" \
  -e "s#\${KUBE_ROOT}/_output/bin/e2e.test#$work/e2e_node.test#" \
  -e "s#^KUBE_ROOT=.*#KUBE_ROOT=$TREE#" "$script" >"$work/verify-e2e-test-ownership.sh"
[ "$(grep -c "$work" "$work/verify-e2e-test-ownership.sh")" -eq 3 ] ||
  die "upstream's $script changed: cannot point it at the spec dump"
rc=0
REUSE_BUILD_OUTPUT=y bash "$work/verify-e2e-test-ownership.sh" || rc=$?
[ $rc -eq 0 ] || die "upstream's hack/verify-e2e-test-ownership.sh fails on e2e_node.test (exit $rc; findings above)"
