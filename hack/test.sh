#!/usr/bin/env bash
# The project's test suite (make test):
#   1. assemble the tree and apply the series (reused when unchanged);
#   2. build the patched kubelet (not rebuilt when unchanged);
#   3. upstream's tests of every package the series adds or changes (unit tests, and integration
#      tests with etcd built by hack/install-etcd.sh), plus the packages listed in
#      hack/test-packages.txt (packages the series affects without editing them);
#   4. the series' Go fuzz targets, FUZZTIME each (default 100000x; their seed corpora in testdata/fuzz
#      already ran as unit tests in step 3), and the project's own Go tests (go test ./...);
#   5. the node e2e suite on this machine (scripts/e2e-node.sh: a real kubelet, containerd, runc
#      and cgroups; needs root). test/e2e_node runs there, not under go test: it is a suite that
#      starts services. SKIP_E2E_NODE=1 leaves step 5 out (said at the end);
#   6. with a Docker engine, the kind smoke test (scripts/kind-smoke.sh: a patched kind cluster
#      built offline, the example driver, a pod pinned as the driver said); SKIP_KIND=1 leaves it out.
# make verify (hack/verify.sh) checks the series itself: clean application, exact export, generated code.
#
# Usage: hack/test.sh
#
# Environment: SKIP_E2E_NODE=1 / SKIP_KIND=1 (leave out the node e2e suite / the kind smoke test),
# FUZZTIME (per fuzz target, a go test -fuzztime value: 100000x, 30s; 0 leaves them out),
# FOCUS / SKIP (for the node e2e suite)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac

"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" kubelet

# Packages with Go files the series adds or changes, as directories of the tree.
mapfile -t pkgs < <(
  {
    tgit diff --name-only --diff-filter=AMR upstream..HEAD -- '*.go' | xargs -r -n1 dirname
    sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$ROOT/hack/test-packages.txt"
  } | LC_ALL=C sort -u | while read -r d; do
    # A directory the series removed entirely, or one without Go files, has nothing to test.
    [ "$d" != test/e2e_node ] || continue
    compgen -G "$TREE/$d/*.go" >/dev/null && echo "./$d"
  done
)
# Upstream's integration tests (test/integration/...) start etcd from PATH.
etcd_dir=$("$ROOT/hack/install-etcd.sh")
log "upstream tests of ${#pkgs[@]} packages the series touches"
printf '    %s\n' "${pkgs[@]}" >&2
(cd "$TREE" && PATH="$etcd_dir:$PATH" go test "${pkgs[@]}")

# The fuzz targets the series adds: "dir FuzzName" lines, from the Go test files it adds or changes.
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can fail a target with a bare
# "context deadline exceeded" when its workers are slow to stop at the deadline on busy cores
# (go.dev/issue/75804, fixed in Go 1.27). 100000 inputs take 8 to 40 s per target here.
FUZZTIME=${FUZZTIME:-100000x}
mapfile -t fuzzers < <(tgit diff --name-only --diff-filter=AMR upstream..HEAD -- '*_test.go' |
  while read -r f; do sed -n "s|^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*|./$(dirname "$f") \1|p" "$TREE/$f"; done)
if [ "$FUZZTIME" = 0 ]; then
  log "the ${#fuzzers[@]} fuzz targets of the series are left out (FUZZTIME=0)"
else
  log "the ${#fuzzers[@]} fuzz targets of the series, $FUZZTIME each"
  for target in "${fuzzers[@]}"; do
    read -r dir name <<<"$target"
    info "$name ($dir)"
    # A failing input is written to the package's testdata/fuzz: it stays in the tree for a look.
    (cd "$TREE" && go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$dir")
  done
fi

log "the project's own tests"
(cd "$ROOT" && go test ./...)
# The golangci-lint build (its own module): the project's sorted plugin.
(cd "$ROOT/hack/tools/golangci-lint" && GOWORK=off go test ./sorted/...)

if [ "${SKIP_E2E_NODE:-}" = 1 ]; then
  log "the node e2e suite is left out (SKIP_E2E_NODE=1): run make e2e-node"
else
  log "the node e2e suite (scripts/e2e-node.sh)"
  "$ROOT/scripts/e2e-node.sh"
fi

if [ "${SKIP_KIND:-}" = 1 ]; then
  log "the kind smoke test is left out (SKIP_KIND=1): run scripts/kind-smoke.sh"
elif ! (. "$ROOT/hack/kind/lib.sh" && docker_available); then
  log "the kind smoke test is skipped: no Docker engine answers here (docker info)"
else
  log "the kind smoke test (scripts/kind-smoke.sh)"
  "$ROOT/scripts/kind-smoke.sh"
fi
