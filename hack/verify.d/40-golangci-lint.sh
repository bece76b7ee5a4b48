#!/usr/bin/env bash
# Upstream's golangci-lint check (hack/verify-golangci-lint.sh, config hack/golangci.yaml of the tree,
# with its logcheck, kubeapilinter (the API lint) and sorted plugins) on every Go package the series
# adds or changes (git diff upstream..HEAD). golangci-lint itself skips generated files, as upstream.
# With --project (45-golangci-lint-project.sh) it lints the project's own Go code with the same
# config instead. golangci-lint comes from hack/install-golangci-lint.sh. Upstream's config allows
# 30 minutes, which a cold run on 2 busy cores exceeds: GOLANGCI_LINT_TIMEOUT (default 60m).
#
# Usage: TREE=... hack/verify.d/40-golangci-lint.sh [--project] [PACKAGE_DIR...]
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

project=false
case ${1:-} in
-h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--project) project=true; shift ;;
esac
TREE=$(cd "$TREE" && pwd)

gcl=$("$ROOT/hack/install-golangci-lint.sh")
work=$(mktemp -d "${TMPDIR:-/tmp}/prm-golangci.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Upstream's config, with the plugins as module plugins compiled into $gcl instead of Go plugins
# loaded from _output/local/bin/*.so (upstream's script also rewrites these paths in a copy).
config=$work/golangci.yaml
sed -E 's#^( *)path: _output/local/bin/[a-z-]+\.so *$#\1type: module#' "$TREE/hack/golangci.yaml" >"$config"
[ "$(grep -c '^ *type: module$' "$config")" -eq "$(grep -c '_output/local/bin/.*\.so' "$TREE/hack/golangci.yaml")" ] ||
  die "could not rewrite every plugin path of $TREE/hack/golangci.yaml"
if ! out=$("$gcl" config verify --schema="$gcl.jsonschema.json" --config="$config" 2>&1); then
  printf '%s\n' "$out" >&2
  die "golangci-lint config verify rejects the tree's hack/golangci.yaml"
fi

# -trimpath as hack/codegen.sh and hack/build.sh: the packages' export data then do not depend on
# where the tree is, so verify's scratch trees reuse Go's build cache (and the binaries' builds).
export GOFLAGS="${GOFLAGS:-} -buildvcs=false -trimpath"
unset GOBIN
run() { # DIR TARGET...: golangci-lint run in DIR, its findings on stderr prefixed with ERROR:
  local dir=$1 rc=0
  shift
  info "golangci-lint run in $dir: $*"
  (cd "$dir" && nice -n 19 "$gcl" run --config="$config" --timeout="${GOLANGCI_LINT_TIMEOUT:-60m}" "$@" 3>&1 >"$work/stdout" 2>&3) |
    sed -e 's/^/ERROR: /' >&2 || rc=$?
  cat "$work/stdout" >&2
  return $rc
}

rc=0
start=$(date +%s)
if $project; then
  what="the project's Go code"
  mapfile -t targets < <(cd "$ROOT" && for d in drivers sanity hack/tools e2e-node/cmd; do [ -d "$d" ] && echo "./$d/..."; done)
  [ $# -eq 0 ] || targets=("$@")
  # GOWORK=off: the project's module, with the SDK from staging/ as go.mod's replace says.
  GOWORK=off run "$ROOT" "${targets[@]}" || rc=$?
  # The linter's own module (hack/tools/golangci-lint has a go.mod of its own).
  if [ $# -eq 0 ]; then GOWORK=off run "$ROOT/hack/tools/golangci-lint" ./... || rc=$?; fi
else
  what="the packages the series touches"
  if [ $# -gt 0 ]; then
    targets=("$@")
  else
    mapfile -t targets < <(series_package_dirs)
  fi
  [ ${#targets[@]} -gt 0 ] || { info "the series changes no Go package"; exit 0; }
  info "${#targets[@]} packages"
  # The tree's go.work, as upstream (kube::golang::setup_env).
  unset GOWORK
  run "$TREE" "${targets[@]}" || rc=$?
fi
info "took $(($(date +%s) - start))s"
if [ $rc -ne 0 ]; then
  echo "error: golangci-lint (upstream's hack/golangci.yaml) reports the findings above in $what (exit $rc)" >&2
  exit 1
fi
