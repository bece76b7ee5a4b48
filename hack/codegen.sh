#!/usr/bin/env bash
# Regenerates the generated files of the tree that the series affects, with upstream's own generators
# (built from the tree), the way and in the order upstream's `make update` runs them:
#
#   hack/update-codegen.sh       protobuf deepcopy swagger defaults validation conversions openapi
#                                applyconfigs
#   hack/update-featuregates.sh  featuregates
#   hack/update-generated-api-compatibility-data.sh
#                                fixtures (staging/src/k8s.io/api/testdata)
#   hack/update-openapi-spec.sh  openapi-spec (api/openapi-spec, api/discovery: etcd and a
#                                kube-apiserver built from the tree, in a private network namespace)
#
# Usage: hack/codegen.sh [--all] [--only STEP[,STEP...]] [TREE]
#
# TREE defaults to $TREE or _output/kubernetes. Each generator first deletes the files it owns, so
# running this on an up-to-date tree changes nothing (hack/verify.d/20-codegen.sh relies on that).
# The generators that write a package's files from that package alone (protobuf, deepcopy, swagger)
# run on the packages the tree changes against its upstream commit and the packages that import
# them, which finds the same differences as running them on every package (see "Scope" below);
# --all (or CODEGEN_SCOPE=all) runs them on every package, as upstream.
# Tools are linked into _output/tools (CODEGEN_TOOLS) from the cache outside the checkout
# (hack/cache.sh): the generators from the tree's own code-generator and kube-openapi, etcd by
# hack/install-etcd.sh, kube-apiserver by hack/build.sh; protoc is Debian's protobuf-compiler
# (installed with apt-get when missing; upstream pins protoc 23.4, the generated files are the same).
# Clients, listers, informers, register and prerelease-lifecycle code is not generated: the series
# adds no API type. The Go bindings of the series' gRPC APIs are hack/protobindings.sh's.
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL_STEPS=(protobuf deepcopy swagger defaults validation conversions openapi applyconfigs featuregates fixtures openapi-spec)

# ---------------------------------------------------------------------------------------------------
# Tools

# Go programs: built from the tree at the versions its go.mod pins, so a rebase brings the matching
# generators. They are kept in the cache outside the checkout (hack/cache.sh) under the key of every
# Go file they are built from (go list -deps) and Go itself; TOOLS/bin links to the entry.
CODEGEN_TOOL_PKGS=(
  k8s.io/code-generator/cmd/go-to-protobuf
  k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo
  k8s.io/code-generator/cmd/deepcopy-gen
  k8s.io/code-generator/cmd/defaulter-gen
  k8s.io/code-generator/cmd/validation-gen
  k8s.io/code-generator/cmd/conversion-gen
  k8s.io/code-generator/cmd/applyconfiguration-gen
  k8s.io/kube-openapi/cmd/openapi-gen
  golang.org/x/tools/cmd/goimports
  ./cmd/genswaggertypedocs
)
build_codegen_tools() {
  log "building the generators from the tree"
  GOBIN="$1" go install "${CODEGEN_TOOL_PKGS[@]}"
}
install_tools() {
  local key entry t
  key=$({
    go version
    go env GOFLAGS GOEXPERIMENT GOAMD64
    declare -f build_codegen_tools
    go list -deps -f '{{if not .Standard}}{{.Dir}}{{end}}' "${CODEGEN_TOOL_PKGS[@]}" | LC_ALL=C sort -u |
      while read -r d; do (cd "$d" && find . -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' -o -name '*.c' -o -name '*.h' \) -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); done
  } | cache_key)
  entry=$(cached tools "$key" "code generators" build_codegen_tools)
  mkdir -p "$TOOLS/bin"
  for t in "$entry"/*; do ln -sfn "$t" "$TOOLS/bin/${t##*/}"; done
}

# gogo.proto, which upstream imports from vendor/: the tree has no vendor/, so it comes from the
# module cache, under the import path the .proto files use.
gogo_proto_include() {
  local dir
  dir=$(go mod download -json github.com/gogo/protobuf | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -f "$dir/gogoproto/gogo.proto" ] || die "no gogo.proto in the module cache ($dir)"
  mkdir -p "$TOOLS/proto/github.com/gogo"
  ln -sfn "$dir" "$TOOLS/proto/github.com/gogo/protobuf"
  echo "$TOOLS/proto"
}

# ---------------------------------------------------------------------------------------------------
# File selection, as hack/update-codegen.sh does it

DIRS_TO_AVOID=() ALL_K8S_TAG_FILES=()
find_tagged_files() {
  # Directories with their own go.work or a _codegenignore are left alone.
  mapfile -t DIRS_TO_AVOID < <(
    git ls-files -cmo --exclude-standard -- ':!:vendor/*' ':(glob)*/**/go.work' ':(glob)**/_codegenignore/**' |
      while read -r f; do echo ":!:$(dirname "$f")"; done
  )
  # Every Go file with a +k8s: comment tag: the generators' inputs are picked from these.
  mapfile -t ALL_K8S_TAG_FILES < <(
    git_grep -l -e '^// *+k8s:' -- ':!:*/testdata/*' ':(glob)**/*.go'
  )
}

git_find() {
  git ls-files -cmo --exclude-standard ':!:vendor/*' "${DIRS_TO_AVOID[@]}" "$@"
}

git_grep() {
  git grep --untracked "$@" ':!:vendor/*' "${DIRS_TO_AVOID[@]}"
}

# tag_pkgs TAG [FILE...]: ./DIR for each directory with a file that carries TAG.
tag_pkgs() {
  local tag=$1
  shift
  grep -l --null -e "$tag" "$@" | while read -r -d $'\0' f; do echo "./$(dirname "$f")"; done | sort -u
}

# ---------------------------------------------------------------------------------------------------
# Scope: the packages whose generated code the tree's changes can change.
#
# The generators that write one package's files from that package alone (protobuf, deepcopy,
# swagger) produce for package X a function of X's Go files, the Go files of the packages X imports
# (directly or not), the generator and its flags. So when neither X nor anything X imports differs
# from upstream (committed or not), X's generated files are exactly upstream's: running them on X
# cannot find a difference the series made. Those generators run on the packages the tree changes
# and every package that imports one of them (go list -deps), and the files they delete first are
# those of these packages only (protobuf still reads the others' types: "-" packages). A hand edit
# of a generated file counts as a change of its package, so it is always in scope.
# Every other generator runs whole: defaulter-gen and conversion-gen collect the defaulting and
# conversion functions of all their input packages into one table, so one package's output depends
# on which others are inputs (conversion-gen on a scoped list changed the conversions of
# pkg/proxy/apis/config/v1alpha1 and pkg/scheduler/apis/config/v1); validation (with its test
# fixtures), openapi and applyconfigs write files that cover all packages; featuregates, fixtures
# and openapi-spec are the series' own. --all (CODEGEN_SCOPE=all) runs every generator on every
# package, as upstream.

declare -A IN_SCOPE=()
SCOPE_ALL=false

# compute_scope: fills IN_SCOPE (./DIR keys) from the tree's changes against the upstream commit.
compute_scope() {
  local touched candidates dir ip deps d
  if $SCOPE_ALL || ! git rev-parse -q --verify upstream >/dev/null; then
    SCOPE_ALL=true
    info "scope: every package (--all, or no upstream commit to compare with)"
    return
  fi
  mapfile -t touched < <(
    { git diff --name-only upstream -- '*.go'; git ls-files --others --exclude-standard -- '*.go'; } |
      xargs -r -n1 dirname | LC_ALL=C sort -u | while read -r d; do [ -d "$d" ] && echo "./$d"; done
  )
  declare -A changed=()
  for d in "${touched[@]}"; do IN_SCOPE[$d]=1; done
  if [ ${#touched[@]} -gt 0 ]; then
    while read -r ip; do changed[$ip]=1; done < <(go list -e -f '{{.ImportPath}}' "${touched[@]}" 2>/dev/null)
  fi
  # Every package a step could generate for: those with a +k8s: tag or a protobuf package tag.
  mapfile -t candidates < <(
    { printf '%s\0' "${ALL_K8S_TAG_FILES[@]}"; git grep --untracked --null -l -e '// +k8s:protobuf-gen=package' -- cmd pkg staging; } |
      while read -r -d $'\0' f; do echo "./$(dirname "$f")"; done | LC_ALL=C sort -u
  )
  while read -r dir ip deps; do
    if [ -n "${changed[$ip]:-}" ]; then
      IN_SCOPE[./${dir#"$TREE"/}]=1
      continue
    fi
    for d in $deps; do
      if [ -n "${changed[$d]:-}" ]; then
        IN_SCOPE[./${dir#"$TREE"/}]=1
        break
      fi
    done
  done < <(go list -e -f '{{.Dir}} {{.ImportPath}} {{join .Deps " "}}' "${candidates[@]}" 2>/dev/null)
  local n=0
  for d in "${candidates[@]}"; do [ -z "${IN_SCOPE[$d]:-}" ] || n=$((n + 1)); done
  info "scope: $n of ${#candidates[@]} packages with generated code (the ${#touched[@]} directories the tree changes and the packages importing them; --all for every package)"
}

# scoped: the ./DIR lines of stdin that are in scope.
scoped() {
  local d
  while read -r d; do
    if $SCOPE_ALL || [ -n "${IN_SCOPE[./${d#./}]:-}" ]; then echo "$d"; fi
  done
}

# scoped_files: the NUL-separated paths of stdin whose directory is in scope, NUL-separated.
scoped_files() {
  local f
  while read -r -d $'\0' f; do
    if $SCOPE_ALL || [ -n "${IN_SCOPE[./$(dirname "$f")]:-}" ]; then printf '%s\0' "$f"; fi
  done
}

# ---------------------------------------------------------------------------------------------------
# Steps. Each mirrors the function or script of upstream named in its comment: same inputs, same
# flags, same files deleted first.

# codegen::protobuf and hack/_update-generated-protobuf-dockerized.sh
step_protobuf() {
  apt_install protoc protobuf-compiler
  local include apis
  include=$(gogo_proto_include)
  mapfile -t apis < <(
    git grep --untracked --null -l -e '// +k8s:protobuf-gen=package' -- cmd pkg staging |
      while read -r -d $'\0' f; do dirname "$f"; done |
      sed 's|^|k8s.io/kubernetes/|;s|k8s.io/kubernetes/staging/src/||' | sort -u
  )
  # Packages out of scope are read for their types but not generated ("-" prefix).
  local ip dir n=0
  for i in "${!apis[@]}"; do
    ip=${apis[$i]}
    case $ip in k8s.io/kubernetes/*) dir=./${ip#k8s.io/kubernetes/} ;; *) dir=./staging/src/$ip ;; esac
    if [ -n "$(echo "$dir" | scoped)" ]; then n=$((n + 1)); else apis[i]=-$ip; fi
  done
  info "$n of ${#apis[@]} packages, $(protoc --version) (upstream pins 23.4)"
  git_find -z ':(glob)**/generated.proto' ':(glob)**/generated.pb.go' ':(glob)**/generated.protomessage.pb.go' |
    scoped_files | xargs -0 -r rm -f
  go-to-protobuf \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$TREE/$BOILERPLATE" \
    --output-dir="$TREE/staging/src" \
    --proto-import="$TREE/staging/src" \
    --proto-import="$include" \
    --proto-import="$TREE/third_party/protobuf" \
    --packages="$(IFS=,; echo "${apis[*]}")"
}

# codegen::deepcopy
step_deepcopy() {
  local pkgs
  mapfile -t pkgs < <(tag_pkgs '+k8s:deepcopy-gen=' "${ALL_K8S_TAG_FILES[@]}" | scoped)
  info "${#pkgs[@]} packages"
  [ ${#pkgs[@]} -gt 0 ] || return 0
  git_find -z ':(glob)**/zz_generated.deepcopy.go' | scoped_files | xargs -0 -r rm -f
  deepcopy-gen \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$BOILERPLATE" \
    --output-file zz_generated.deepcopy.go \
    --lint-rules=known-tags-only,require-explicit-disablement \
    "${pkgs[@]}"
}

# codegen::swagger and gen_types_swagger_doc
step_swagger() {
  local gvs
  # The group versions and their directories come from upstream's own lists (hack/lib/init.sh).
  mapfile -t gvs < <(
    set +o nounset
    KUBE_ROOT=$TREE
    # shellcheck disable=SC1091
    source hack/lib/init.sh
    for gv in meta/v1 meta/v1beta1 $KUBE_AVAILABLE_GROUP_VERSIONS; do
      echo "$gv $(kube::util::group-version-to-pkg-path "$gv")"
    done
  )
  info "${#gvs[@]} group versions"
  git_find -z ':(glob)**/types_swagger_doc_generated.go' | scoped_files | xargs -0 -r rm -f
  local line gv dir tmp n=0
  for line in "${gvs[@]}"; do
    gv=${line%% *} dir=${line#* }
    [ -n "$(echo "./$dir" | scoped)" ] || continue
    n=$((n + 1))
    tmp=$(mktemp "${TMPDIR:-/tmp}/types_swagger_doc_generated.XXXXXX.go")
    {
      cat "$BOILERPLATE"
      echo
      echo "package ${gv##*/}"
      cat <<'EOF'

          // This file contains a collection of methods that can be used from go-restful to
          // generate Swagger API documentation for its models. Please read this PR for more
          // information on the implementation: https://github.com/emicklei/go-restful/pull/215
          //
          // TODOs are ignored from the parser (e.g. TODO(andronat):... || TODO:...) if and only if
          // they are on one line! For multiple line or blocks that you want to ignore use ---.
          // Any context after a --- is ignored.
          //
          // Those methods can be generated by using hack/update-codegen.sh

          // AUTO-GENERATED FUNCTIONS START HERE. DO NOT EDIT.
EOF
      genswaggertypedocs -s "$dir/types.go" -f -
      echo "// AUTO-GENERATED FUNCTIONS END HERE"
    } >"$tmp"
    gofmt -w -s "$tmp"
    # mv keeps the mode of mktemp's file (0600): write the content into a normal file instead.
    cat "$tmp" >"$dir/types_swagger_doc_generated.go"
    rm -f "$tmp"
  done
  info "$n in scope"
}

# codegen::defaults
step_defaults() {
  local pkgs
  mapfile -t pkgs < <(tag_pkgs '+k8s:defaulter-gen=' "${ALL_K8S_TAG_FILES[@]}")
  info "${#pkgs[@]} packages"
  git_find -z ':(glob)**/zz_generated.defaults.go' | xargs -0 rm -f
  defaulter-gen \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$BOILERPLATE" \
    --output-file zz_generated.defaults.go \
    --lint-rules=known-tags-only,require-explicit-disablement \
    "${pkgs[@]}"
}

# codegen::validation
step_validation() {
  local pkgs readonly_pkgs=(
    k8s.io/apimachinery/pkg/api/resource
    k8s.io/apimachinery/pkg/runtime
    k8s.io/apimachinery/pkg/types
    k8s.io/apimachinery/pkg/util/intstr
    time
  )
  mapfile -t pkgs < <(tag_pkgs '+k8s:validation-gen=' "${ALL_K8S_TAG_FILES[@]}")
  info "${#pkgs[@]} packages"
  git_find -z ':(glob)**/zz_generated.validations.*' | xargs -0 rm -f
  # shellcheck disable=SC2046 # one --readonly-pkg per package
  validation-gen \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$BOILERPLATE" \
    --output-file zz_generated.validations.go \
    --test-output-root test/declarative_validation \
    --test-output-file-prefix zz_generated.validations. \
    --test-allowlist test/declarative_validation/coverage-allowlist.yaml \
    --lint-rules=known-tags-only,require-explicit-disablement \
    $(printf -- ' --readonly-pkg %s' "${readonly_pkgs[@]}") \
    "${pkgs[@]}"
}

# codegen::conversions
step_conversions() {
  local pkgs
  mapfile -t pkgs < <(tag_pkgs '^// *+k8s:conversion-gen=' "${ALL_K8S_TAG_FILES[@]}")
  info "${#pkgs[@]} packages"
  git_find -z ':(glob)**/zz_generated.conversion.go' | xargs -0 rm -f
  conversion-gen \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$BOILERPLATE" \
    --output-file zz_generated.conversion.go \
    --lint-rules=known-tags-only,require-explicit-disablement \
    --extra-peer-dirs k8s.io/kubernetes/pkg/apis/core \
    --extra-peer-dirs k8s.io/kubernetes/pkg/apis/core/v1 \
    --extra-peer-dirs k8s.io/api/core/v1 \
    "${pkgs[@]}"
}

# codegen::openapi. As hack/verify-codegen.sh (UPDATE_API_KNOWN_VIOLATIONS=true), API rule
# violations are written to api/api-rules/violation_exceptions.list: a new one shows up as a change.
step_openapi() {
  local files pkgs f
  files=()
  for f in "${ALL_K8S_TAG_FILES[@]}"; do
    case $f in
    staging/src/k8s.io/code-generator/* | staging/src/k8s.io/sample-apiserver/* | staging/src/k8s.io/sample-controller/*) ;;
    *) files+=("$f") ;;
    esac
  done
  mapfile -t pkgs < <(tag_pkgs '+k8s:openapi' "${files[@]}")
  info "${#pkgs[@]} packages"
  git_find -z ':(glob)pkg/generated/**/zz_generated.openapi.go' | xargs -0 rm -f
  git_find -z ':(glob)pkg/generated/**/zz_generated.model_name.go' | xargs -0 rm -f
  openapi-gen \
    -v "$KUBE_VERBOSE" \
    --go-header-file "$BOILERPLATE" \
    --output-file zz_generated.openapi.go \
    --output-dir pkg/generated/openapi \
    --output-pkg k8s.io/kubernetes/pkg/generated/openapi \
    --report-filename api/api-rules/violation_exceptions.list \
    --output-model-name-file zz_generated.model_name.go \
    "${pkgs[@]}"
}

# codegen::applyconfigs. models-schema embeds pkg/generated/openapi: built after step openapi.
step_applyconfigs() {
  GOBIN="$TOOLS/bin" go install k8s.io/kubernetes/pkg/generated/openapi/cmd/models-schema
  local apis
  mapfile -t apis < <(
    cd staging/src && git_find -z ':(glob)k8s.io/api/**/types.go' |
      while read -r -d $'\0' f; do dirname "$f"; done | sort -u
  )
  apis+=(k8s.io/apimachinery/pkg/apis/meta/v1)
  info "${#apis[@]} packages"
  { git_grep -l --null -e '^// Code generated by applyconfiguration-gen. DO NOT EDIT.$' \
    -- ':(glob)staging/src/k8s.io/client-go/**/*.go' || true; } | xargs -0 rm -f
  applyconfiguration-gen \
    -v "$KUBE_VERBOSE" \
    --openapi-schema <(models-schema) \
    --go-header-file "$BOILERPLATE" \
    --output-dir "$TREE/staging/src/k8s.io/client-go/applyconfigurations" \
    --output-pkg k8s.io/client-go/applyconfigurations \
    "${apis[@]}"
}

# hack/update-featuregates.sh, run as it is.
step_featuregates() {
  bash hack/update-featuregates.sh
}

# hack/update-generated-api-compatibility-data.sh, for k8s.io/api (the series does not change the
# apiextensions types). The first run writes the fixtures and fails; the second checks them.
# Unlike upstream's script this runs the fixtures of previous releases too (testdata/v*), as
# staging/src/k8s.io/api/testdata/README.md describes: PodSpec.ResourceDriver is a non-pointer
# string, which protobuf always encodes, so objects of previous releases need their
# *.after_roundtrip.pb (and every new release's testdata/ will, after a rebase).
step_fixtures() {
  rm -f staging/src/k8s.io/api/testdata/HEAD/*.{yaml,json,pb}
  UPDATE_COMPATIBILITY_FIXTURE_DATA=true go test k8s.io/api -run TestCompatibility >/dev/null 2>&1 || true
  go test k8s.io/api -run TestCompatibility -count=1
}

# wait_for_url URL WHAT TRIES, as kube::util::wait_for_url.
wait_for_url() {
  local _
  for _ in $(seq "$3"); do
    curl --max-time 1 -gkfs "$1" >/dev/null 2>&1 && return 0
    sleep 1
  done
  info "$2 did not answer at $1 after $3 tries"
  return 1
}

# serve_openapi_spec OUT: the part of hack/update-openapi-spec.sh that runs etcd and kube-apiserver
# and writes what the server serves into OUT/discovery and OUT/openapi-spec. The ports are
# upstream's (the API server's port is part of api/discovery/api.json).
ETCD_PID="" APISERVER_PID=""
serve_openapi_spec() {
  local out=$1 tmp=$1/run api=https://127.0.0.1:8050 port
  # shellcheck disable=SC2317 # called by the trap
  stop() {
    [ -z "$APISERVER_PID" ] || { kill "$APISERVER_PID" 2>/dev/null; wait "$APISERVER_PID" 2>/dev/null || true; }
    [ -z "$ETCD_PID" ] || { kill "$ETCD_PID" 2>/dev/null; wait "$ETCD_PID" 2>/dev/null || true; }
  }
  trap stop EXIT
  mkdir -p "$tmp"
  [ "${CODEGEN_NETNS:-}" != 1 ] || ip link set lo up
  for port in 2379 8050; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "port $port is in use: the OpenAPI spec step needs it (or root, for a private network namespace)"
    fi
  done

  etcd --advertise-client-urls http://127.0.0.1:2379 --data-dir "$tmp/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --listen-peer-urls http://localhost:0 \
    --log-level=warn >"$tmp/etcd.log" 2>&1 &
  ETCD_PID=$!
  wait_for_url http://127.0.0.1:2379/health etcd 80 || { tail -n 20 "$tmp/etcd.log" >&2; exit 1; }

  echo "dummy_token,admin,admin" >"$tmp/tokenauth.csv"
  openssl genrsa -out "$tmp/sa.key" 2048 2>/dev/null
  # Flags as upstream's script (enums omitted from the static spec until kubernetes#109177).
  KUBE_APISERVER_STRICT_REMOVED_API_HANDLING_IN_ALPHA=${KUBE_APISERVER_STRICT_REMOVED_API_HANDLING_IN_ALPHA:-true} \
    kube-apiserver \
    --bind-address=127.0.0.1 \
    --secure-port=8050 \
    --etcd-servers=http://127.0.0.1:2379 \
    --advertise-address=10.10.10.10 \
    --cert-dir="$tmp/certs" \
    --feature-gates=AllAlpha=true,AllBeta=true,OpenAPIEnums=false \
    --runtime-config=api/all=true \
    --token-auth-file="$tmp/tokenauth.csv" \
    --authorization-mode=RBAC \
    --service-account-key-file="$tmp/sa.key" \
    --service-account-lookup=true \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-signing-key-file="$tmp/sa.key" \
    --enable-logs-handler=true \
    --v=2 \
    --service-cluster-ip-range=10.0.0.0/24 >"$tmp/kube-apiserver.log" 2>&1 &
  APISERVER_PID=$!
  wait_for_url "$api/healthz" kube-apiserver 120 || { tail -n 20 "$tmp/kube-apiserver.log" >&2; exit 1; }

  local get=(curl -kfsS -H 'Authorization: Bearer dummy_token') groups group name
  mkdir -p "$out/discovery" "$out/openapi-spec/v3"
  "${get[@]}" -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' "$api/apis" |
    jq -S . >"$out/discovery/aggregated_v2.json"
  "${get[@]}" -w '\n' "$api/openapi/v2" | jq -S '.info.version="unversioned"' >"$out/openapi-spec/swagger.json"
  mapfile -t groups < <("${get[@]}" -w '\n' "$api/openapi/v3" | jq -r '.paths | to_entries | .[].key')
  info "OpenAPI v3 of ${#groups[@]} groups"
  for group in "${groups[@]}"; do
    name=${group}_openapi.json
    "${get[@]}" -w '\n' "$api/openapi/v3/$group" | jq -S '.info.version="unversioned"' >"$out/openapi-spec/v3/${name//\//__}"
    if [[ $group == api* ]]; then
      name=$group.json
      "${get[@]}" "$api/$group" | jq -S . >"$out/discovery/${name//\//__}"
    fi
  done
}

# hack/update-openapi-spec.sh: the spec a kube-apiserver serves with every API and feature on.
# Upstream's script downloads etcd and builds with make; here etcd is built from the tree's go.mod and
# kube-apiserver with the flags of upstream's build. The servers run in a private network namespace
# when possible (root), so upstream's fixed ports are always free and nothing outside reaches them.
# The spec is served into a scratch directory first: a failure leaves the tree's spec alone.
SPEC_TMP=""
trap '[ -z "$SPEC_TMP" ] || rm -rf "$SPEC_TMP"' EXIT

step_openapi_spec() {
  apt_install jq jq
  apt_install curl curl
  apt_install openssl openssl
  info "etcd and kube-apiserver (hack/install-etcd.sh, hack/build.sh: built once, then reused)"
  cp "$(TREE=$TREE "$ROOT/hack/install-etcd.sh")/etcd" "$TOOLS/bin/etcd"
  # hack/build.sh's kube-apiserver (upstream's tags, without cgo), the very binary the kind node
  # image carries: built once for both, from the tree as the earlier steps left it.
  # With the caller's GOFLAGS (not this script's -trimpath, which build.sh adds itself), so that
  # the binary's key is make build's.
  GOFLAGS=$CALLER_GOFLAGS TREE=$TREE "$ROOT/hack/build.sh" kube-apiserver >&2
  cp "$BIN/kube-apiserver" "$TOOLS/bin/kube-apiserver"

  SPEC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/codegen-openapi.XXXXXX")
  export TREE CODEGEN_TOOLS=$TOOLS
  if unshare --net true 2>/dev/null; then
    apt_install ip iproute2
    info "serving the spec in a private network namespace"
    CODEGEN_NETNS=1 unshare --net --fork -- "$ROOT/hack/codegen.sh" --serve-openapi-spec "$SPEC_TMP"
  else
    info "serving the spec on 127.0.0.1:8050 (no private network namespace: not root?)"
    "$ROOT/hack/codegen.sh" --serve-openapi-spec "$SPEC_TMP"
  fi
  # As upstream: api/discovery is written anew; in api/openapi-spec, swagger.json and v3/.
  rm -rf api/discovery api/openapi-spec/swagger.json api/openapi-spec/v3
  cp -r "$SPEC_TMP/discovery" api/discovery
  cp -r "$SPEC_TMP/openapi-spec/swagger.json" "$SPEC_TMP/openapi-spec/v3" api/openapi-spec/
  rm -rf "$SPEC_TMP"
  SPEC_TMP=""
}

# ---------------------------------------------------------------------------------------------------
# Main

# Internal: the server half of step openapi-spec, run in its own network namespace.
if [ "${1:-}" = --serve-openapi-spec ]; then
  export PATH="$CODEGEN_TOOLS/bin:$PATH"
  serve_openapi_spec "$2"
  exit 0
fi

steps=("${ALL_STEPS[@]}")
tree_arg=""
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --all) SCOPE_ALL=true; shift ;;
  --only)
    [ $# -ge 2 ] || die "--only needs a list of steps (see --help)"
    IFS=, read -r -a steps <<<"$2"
    for s in "${steps[@]}"; do
      [[ " ${ALL_STEPS[*]} " == *" $s "* ]] || die "unknown step $s (steps: ${ALL_STEPS[*]})"
    done
    shift 2
    ;;
  -*) die "unknown option $1 (see --help)" ;;
  *)
    [ -z "$tree_arg" ] || die "more than one TREE given (see --help)"
    tree_arg=$1
    shift
    ;;
  esac
done
[ -z "$tree_arg" ] || TREE=$tree_arg
[ -f "$TREE/go.mod" ] && [ -d "$TREE/staging/src/k8s.io/code-generator" ] ||
  die "$TREE is not a Kubernetes tree (run make tree, or pass TREE)"
TREE=$(cd "$TREE" && pwd)

TOOLS=${CODEGEN_TOOLS:-$ROOT/_output/tools}
BOILERPLATE=hack/boilerplate/boilerplate.generatego.txt
# As hack/update-codegen.sh: sort and compare in one locale, generators at verbosity 1.
export LC_ALL=C
KUBE_VERBOSE=${KUBE_VERBOSE:-1}
unset GREP_OPTIONS
# As kube::golang::setup_env: the tree's workspace (go.work), binaries only where we put them.
unset GOWORK GOBIN
# As upstream's release builds: no local paths in what is built, so trees at other places (verify's
# scratch tree) share the build cache and the tools.
CALLER_GOFLAGS=${GOFLAGS:-}
export GOFLAGS="${GOFLAGS:-} -trimpath"
export PATH="$TOOLS/bin:$PATH"

cd "$TREE"

log "generating code in $TREE: ${steps[*]}"
total_start=$(date +%s)
install_tools
find_tagged_files
[ "${CODEGEN_SCOPE:-}" != all ] || SCOPE_ALL=true
compute_scope
for step in "${ALL_STEPS[@]}"; do
  [[ " ${steps[*]} " == *" $step "* ]] || continue
  log "$step"
  start=$(date +%s)
  "step_${step//-/_}"
  info "$step took $(($(date +%s) - start))s"
done
changed=$(git status --porcelain | wc -l)
log "done in $(($(date +%s) - total_start))s; $changed changed or new files in the tree (git status)"
