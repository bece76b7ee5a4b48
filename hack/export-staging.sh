#!/usr/bin/env bash
# Copies the modules that driver authors import (listed in hack/staging.list) from a patched tree
# into an output directory, e.g. staging/.
#
# Usage: hack/export-staging.sh TREE OUT
#
# Each line of hack/staging.list is a file or directory of the tree (e.g.
# staging/src/k8s.io/kubelet/pkg/apis/resourcemanager); it is written to OUT/<same path without
# "staging/"> (OUT/src/k8s.io/...), replacing what was there. OUT holds nothing else but a README.md.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 2 ] || die "usage: hack/export-staging.sh TREE OUT"
tree=$1 out=$2
list=$STAGING_LIST

mkdir -p "$out"
find "$out" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
[ -f "$list" ] || exit 0
sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$list" | while read -r dir; do
  [ -e "$tree/$dir" ] || die "hack/staging.list names $dir, which the tree does not have"
  dest=$out/${dir#staging/}
  mkdir -p "$(dirname "$dest")"
  if [ -d "$tree/$dir" ]; then
    mkdir -p "$dest"
    cp -r "$tree/$dir/." "$dest/"
  else
    cp "$tree/$dir" "$dest"
  fi
done
