#!/usr/bin/env bash
# Upstream's hack/verify-boilerplate.sh on the whole tree: every source file (Go, shell, Python,
# Makefile, Dockerfile, ...) starts with the license header of hack/boilerplate/ (new files since
# 2025: without a year). boilerplate.py skips every path containing "_output" (or "vendor",
# "testdata", ...), which _output/kubernetes does: it runs through a symbolic link in a temporary
# directory, so the paths it sees start there.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
apt_install python3 python3
TREE=$(cd "$TREE" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/prm-boilerplate.XXXXXX")
trap 'rm -rf "$work"' EXIT
ln -s "$TREE" "$work/kubernetes"
rc=0
(cd "$work/kubernetes" && nice -n 19 bash "$work/kubernetes/hack/verify-boilerplate.sh" 2>&1 | sed "s#$work/kubernetes/##") || rc=$?
[ $rc -eq 0 ] || die "upstream's hack/verify-boilerplate.sh fails (exit $rc; findings above)"
