#!/usr/bin/env bash
# Regenerates the Go bindings (api.pb.go, api_grpc.pb.go) of the gRPC APIs the series adds, the way
# upstream's `hack/update-codegen.sh protobindings` does (hack/lib/protoc.sh), with protoc-gen-go and
# protoc-gen-go-grpc at the versions upstream generated its other kubelet APIs with.
#
# Usage: hack/protobindings.sh [TREE]     (default: $TREE, i.e. _output/kubernetes)
#
# protoc comes from Debian's protobuf-compiler (installed when missing); upstream pins protoc 23.4,
# so only the "protoc" version line in the generated header differs from upstream's output.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
TREE=${1:-$TREE}
[ -d "$TREE" ] || die "no tree at $TREE: run make tree first"
TREE=$(cd "$TREE" && pwd)

# The API directories the series adds, each holding an api.proto.
apis=(staging/src/k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1)

# Versions used by upstream for the kubelet APIs (see the headers of its api*.pb.go files).
PROTOC_GEN_GO_VERSION=v1.36.11
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

tools=$ROOT/_output/tools/protobindings
apt_install protoc protobuf-compiler
if [ ! -x "$tools/protoc-gen-go-$PROTOC_GEN_GO_VERSION" ] || [ ! -x "$tools/protoc-gen-go-grpc-$PROTOC_GEN_GO_GRPC_VERSION" ]; then
  log "installing protoc-gen-go $PROTOC_GEN_GO_VERSION and protoc-gen-go-grpc $PROTOC_GEN_GO_GRPC_VERSION"
  mkdir -p "$tools"
  (cd / && GOWORK=off GOBIN=$tools go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION")
  (cd / && GOWORK=off GOBIN=$tools go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION")
  mv "$tools/protoc-gen-go" "$tools/protoc-gen-go-$PROTOC_GEN_GO_VERSION"
  mv "$tools/protoc-gen-go-grpc" "$tools/protoc-gen-go-grpc-$PROTOC_GEN_GO_GRPC_VERSION"
fi

cd "$TREE"
for api in "${apis[@]}"; do
  [ -f "$api/api.proto" ] || continue # not in the series (yet)
  log "generating $api/api.pb.go and api_grpc.pb.go"
  rm -f "$api"/api*.pb.go
  protoc \
    --plugin=protoc-gen-go="$tools/protoc-gen-go-$PROTOC_GEN_GO_VERSION" \
    --plugin=protoc-gen-go-grpc="$tools/protoc-gen-go-grpc-$PROTOC_GEN_GO_GRPC_VERSION" \
    --proto_path="$TREE" \
    --proto_path="$TREE/staging/src" \
    --proto_path="$TREE/third_party/protobuf" \
    --go_out=. --go_opt=paths=source_relative \
    --go-grpc_out=. --go-grpc_opt=paths=source_relative \
    "$api/api.proto"
  for file in "$api"/api*.pb.go; do
    cat hack/boilerplate/boilerplate.generatego.txt "$file" >"$file.tmp" && mv "$file.tmp" "$file"
    gofmt -s -w "$file"
  done
done
