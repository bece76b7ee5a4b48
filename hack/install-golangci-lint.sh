#!/usr/bin/env bash
# Builds golangci-lint with the plugins upstream Kubernetes' hack/golangci.yaml uses (logcheck,
# kubeapilinter, sorted) compiled in, from hack/tools/golangci-lint (its go.mod pins the versions;
# everything comes from the Go module proxy), into _output/tools/bin/golangci-lint, and prints that
# path (and golangci-lint's JSON schema of the config, from the module, as PATH.jsonschema.json). A
# binary built from the same go.mod, go.sum and sources is reused from the cache outside the checkout
# (hack/cache.sh), not rebuilt.
#
# Usage: hack/install-golangci-lint.sh
#
# Versions: those of upstream's hack/tools/golangci-lint/go.mod for 1.37 (golangci-lint v2.11.2,
# logtools v0.10.1; the tree's hack/golangci.yaml is rejected by v2.13 and later). That module, and
# its sorted plugin, are not in the Kubernetes module zip: sorted is the project's own
# implementation (hack/tools/golangci-lint/sorted). Upstream loads the plugins as Go plugins (*.so,
# cgo); here they are module plugins, so hack/verify.d/40-golangci-lint.sh runs upstream's
# hack/golangci.yaml with `path: *.so` replaced by `type: module`.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in
-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac

src=$ROOT/hack/tools/golangci-lint
out=${GOLANGCI_LINT_BIN:-$ROOT/_output/tools/bin/golangci-lint}
command -v go >/dev/null || die "go is not on PATH (needed to build golangci-lint)"
want=$(sed -n 's#^\tgithub.com/golangci/golangci-lint/v2 v\(.*\)$#\1#p' "$src/go.mod")
[ -n "$want" ] || die "$src/go.mod pins no github.com/golangci/golangci-lint/v2"
# build_golangci_lint DIR: golangci-lint into DIR, with its JSON schema.
build_golangci_lint() {
  local dir=$1 start schema
  log "building golangci-lint $want with logcheck, kubeapilinter and sorted"
  start=$(date +%s)
  (cd "$src" && GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0 nice -n 19 go build -trimpath -o "$dir/golangci-lint" .)
  # `golangci-lint config verify` downloads the JSON schema of its release: keep the module's copy.
  schema=$(cd "$src" && GOWORK=off GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' github.com/golangci/golangci-lint/v2)
  cp "$schema/jsonschema/golangci.jsonschema.json" "$dir/golangci-lint.jsonschema.json"
  "$dir/golangci-lint" version 2>/dev/null | grep -q "version $want " || die "the built golangci-lint is not $want"
  info "built in $(($(date +%s) - start))s: $("$dir/golangci-lint" version 2>&1 | head -n 1)"
}
# Kept in the cache outside the checkout (hack/cache.sh) under the key of its module and Go.
key=$({
  (cd "$src" && go env GOVERSION && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs sha256sum)
  declare -f build_golangci_lint
} | cache_key)
if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$key" ] && [ -f "$out.jsonschema.json" ]; then
  printf '%s\n' "$out"
  exit 0
fi
entry=$(cached tools "$key" "golangci-lint $want" build_golangci_lint)
mkdir -p "$(dirname "$out")"
cp "$entry/golangci-lint.jsonschema.json" "$out.jsonschema.json"
cp "$entry/golangci-lint" "$out.tmp"
mv "$out.tmp" "$out"
echo "$key" >"$out.stamp"
printf '%s\n' "$out"
