#!/usr/bin/env bash
# Runs the node e2e suite (make e2e-node) on another host over ssh, for example one with several
# NUMA nodes, where the suite's NUMA spec runs instead of skipping. Sends this checkout's HEAD as a
# git bundle (commit first: uncommitted changes are not sent), runs `make e2e-node` there in
# REMOTE_DIR, and copies the report (JUnit XML, test and kubelet logs) back to
# _output/e2e/remote/<host>/<time>/. The exit status is the remote run's.
#
# Usage: scripts/e2e-node-remote.sh [-h|--help] [USER@]HOST
#
# The remote user must be root (the suite runs a kubelet). The host needs what `make e2e-node`
# needs here: Debian or Ubuntu with git, make and Go 1.26 (on PATH or in /usr/local/go/bin), the
# Go module proxy and the distribution's packages reachable, cgroups and a kernel that runs
# containers. The first run there assembles the tree and builds the kubelet (15-20 minutes on 2
# cores); later runs reuse REMOTE_DIR.
#
# Environment:
#   FOCUS, SKIP   Ginkgo regexps, passed on to make e2e-node (default: its default focus)
#   REMOTE_DIR    the checkout on the host (default /var/tmp/pluggable-rm)
#   SSH           the ssh command (default ssh); SSH_OPTS extra options, e.g. "-p 2222 -i key"
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../hack/lib.sh
. "$ROOT/hack/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
case ${1:-} in
  -h | --help) usage; exit 0 ;;
  "" | -*) usage >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { usage >&2; exit 2; }
host=$1
REMOTE_DIR=${REMOTE_DIR:-/var/tmp/pluggable-rm}
SSH=${SSH:-ssh}
read -r -a ssh_opts <<<"${SSH_OPTS:-}"
remote() { "$SSH" "${ssh_opts[@]}" -o BatchMode=yes "$host" "$@"; }
# q WORD: WORD quoted for the remote shell.
q() { printf '%q' "$1"; }

[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
  warn "uncommitted changes are not sent: the host runs commit $(git -C "$ROOT" rev-parse --short HEAD)"

log "checking $host"
remote true || die "cannot reach $host over ssh (${SSH} ${SSH_OPTS:-} -o BatchMode=yes $host): check the host, its ssh key and SSH_OPTS"
remote 'test "$(id -u)" = 0' ||
  die "cannot run as root on $host over ssh (${SSH} ${SSH_OPTS:-}): make e2e-node needs root there"
remote 'PATH=$PATH:/usr/local/go/bin; for c in git make go; do command -v $c >/dev/null || { echo "missing: $c"; exit 1; }; done' ||
  die "$host lacks a tool above: install git, make and Go 1.26 there"

log "sending commit $(git -C "$ROOT" rev-parse --short HEAD) to $host:$REMOTE_DIR"
bundle=$(mktemp)
trap 'rm -f "$bundle"' EXIT
git -C "$ROOT" bundle create "$bundle" HEAD 2>/dev/null
remote "mkdir -p $(q "$REMOTE_DIR") && cat >$(q "$REMOTE_DIR/head.bundle")" <"$bundle"
# A clone on the first run; afterwards a checkout of the new commit, keeping _output/ (the
# assembled tree, binaries and images are reused when they are up to date).
remote "set -e; cd $(q "$REMOTE_DIR")
  if [ ! -d repo/.git ]; then git clone -q head.bundle repo; fi
  cd repo && git fetch -q ../head.bundle HEAD && git checkout -q --detach FETCH_HEAD && git clean -qfdx -e _output"

log "running make e2e-node on $host (FOCUS=${FOCUS:-<default>} SKIP=${SKIP:-<none>})"
rc=0
remote "cd $(q "$REMOTE_DIR/repo") && PATH=\$PATH:/usr/local/go/bin FOCUS=$(q "${FOCUS:-}") SKIP=$(q "${SKIP:-}") make e2e-node" || rc=$?

keep=$ROOT/_output/e2e/remote/${host#*@}/$(date +%Y%m%d-%H%M%S)
mkdir -p "$keep"
# The newest report directory of the remote run.
if remote "cd $(q "$REMOTE_DIR/repo/_output/e2e/e2e-node") && d=\$(ls -1 | tail -n 1) && [ -n \"\$d\" ] && tar -C \"\$d\" -cf - ." |
  tar -C "$keep" -xf -; then
  info "report and logs of $host kept in $keep"
else
  warn "no report came back from $host"
fi
[ "$rc" = 0 ] && log "make e2e-node passed on $host" || warn "make e2e-node failed on $host (exit $rc)"
exit "$rc"
