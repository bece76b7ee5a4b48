#!/usr/bin/env bash
# Builds golangci-lint with the plugins upstream Kubernetes' hack/golangci.yaml uses (logcheck,
# kubeapilinter, sorted) compiled in, from hack/tools/golangci-lint (its go.mod pins the versions;
# everything comes from the Go module proxy), into _output/tools/bin/golangci-lint, and prints that
# path (and golangci-lint's JSON schema of the config, from the module, as PATH.jsonschema.json). A
# binary built from the same go.mod, go.sum and sources is reused, not rebuilt.
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
-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac

src=$ROOT/hack/tools/golangci-lint
out=${GOLANGCI_LINT_BIN:-$ROOT/_output/tools/bin/golangci-lint}
command -v go >/dev/null || die "go is not on PATH (needed to build golangci-lint)"
want=$(sed -n 's#^\tgithub.com/golangci/golangci-lint/v2 v\(.*\)$#\1#p' "$src/go.mod")
[ -n "$want" ] || die "$src/go.mod pins no github.com/golangci/golangci-lint/v2"
stamp=$( (cd "$src" && go env GOVERSION && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-16)

if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$out.jsonschema.json" ] &&
  "$out" version 2>/dev/null | grep -q "version $want "; then
  printf '%s\n' "$out"
  exit 0
fi

log "building golangci-lint $want with logcheck, kubeapilinter and sorted into $out"
mkdir -p "$(dirname "$out")"
start=$(date +%s)
(cd "$src" && GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0 nice -n 19 go build -trimpath -o "$out.tmp" .) >&2
# `golangci-lint config verify` downloads the JSON schema of its release: keep the module's copy.
dir=$(cd "$src" && GOWORK=off GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' github.com/golangci/golangci-lint/v2)
cp "$dir/jsonschema/golangci.jsonschema.json" "$out.jsonschema.json"
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
info "built in $(($(date +%s) - start))s: $("$out" version 2>&1 | head -n 1)"
printf '%s\n' "$out"
