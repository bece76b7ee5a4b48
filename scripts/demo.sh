#!/usr/bin/env bash
# The demo (make demo): builds the patched kubelet and shows the PluggableResourceManagement gate.
#
# Usage: scripts/demo.sh
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in -h | --help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" kubelet
kubelet=$ROOT/_output/bin/kubelet
echo
echo "==> $kubelet --feature-gates=PluggableResourceManagement=true --version"
"$kubelet" --feature-gates=PluggableResourceManagement=true --version 2>/dev/null | sed 's/^/    /'
"$kubelet" --version=raw 2>/dev/null | grep -E 'GitVersion|GitCommit|BuildDate' | sed 's/^ */    /'

echo "==> the gate in 'kubelet --help':"
"$kubelet" --help 2>/dev/null | grep -o 'PluggableResourceManagement=true|false ([A-Z]*[^)]*)' | sed 's/^/    /'
