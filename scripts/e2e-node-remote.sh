#!/usr/bin/env bash
# Runs the node e2e suite on other hosts over ssh, several in parallel: for example real
# multi-NUMA machines, or the multi-NUMA guest of `make e2e-node-vm`. Like upstream's remote
# runner (test/e2e_node/runner/remote --mode=ssh), it builds here and ships binaries: the patched
# kubelet, e2e_node.test, the offline test images and the harness's node scripts, in one archive.
# Nothing is built on a host, which needs no Go, no tree and no registry. Each host runs
# e2e-node/run-e2e-node.sh (a private containerd, the suite, the clean-up) in REMOTE_DIR, and its
# report (JUnit XML, test, kubelet and containerd logs) comes back to
# _output/e2e/remote/<host>/<time>/. Prints `N passed, N failed, N skipped` per host; the exit
# status is 0 only when every host passed.
#
# Usage: scripts/e2e-node-remote.sh [-h|--help] HOST[,HOST...]
#   HOST   [USER@]HOST, or ssh://[USER@]HOST:PORT; the user must be root (the suite runs a kubelet)
#
# A host needs: Linux with cgroups (v1 or v2), root over ssh with a key (BatchMode), tar, and
# containerd, runc and the CNI plugins (Debian's containerd, runc and containernetworking-plugins;
# installed with apt-get when missing). The suite starts its own containerd on its own socket.
#
# Environment:
#   FOCUS, SKIP    Ginkgo regexps (default: those of make e2e-node)
#   MUST_RUN       regexp of specs that must run, not skip, on every host (junitsummary -must-run)
#   FEATURE_GATES  the kubelet's and the API server's gates (default PluggableResourceManagement=true)
#   TIMEOUT        after which the suite fails on a host (default: run-e2e-node.sh's, 24h)
#   REMOTE_DIR     the directory on the hosts (default /var/tmp/e2e-node-remote; replaced each run)
#   SSH_OPTS       extra ssh options, e.g. "-i key -o StrictHostKeyChecking=no"
#   SSH_TIMEOUT    seconds to wait for a host to answer (default 10)
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../e2e-node/lib.sh
. "$ROOT/e2e-node/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
case ${1:-} in
  -h | --help) usage; exit 0 ;;
  "" | -*) usage >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { usage >&2; exit 2; }
IFS=, read -r -a hosts <<<"$1"
[ ${#hosts[@]} -gt 0 ] || die "no host given"
FOCUS=${FOCUS:-'\[Feature:PluggableResourceManagement\]|\[Feature:CPUManager\]'}
SKIP=${SKIP-'\[Benchmark\]'}
MUST_RUN=${MUST_RUN:-}
FEATURE_GATES=${FEATURE_GATES-PluggableResourceManagement=true}
REMOTE_DIR=${REMOTE_DIR:-/var/tmp/e2e-node-remote}
read -r -a ssh_opts <<<"${SSH_OPTS:-}"
ssh_cmd=(ssh "${ssh_opts[@]}" -o BatchMode=yes -o ConnectTimeout="${SSH_TIMEOUT:-10}" -o ServerAliveInterval=30)
# q WORD: WORD quoted for the remote shell.
q() { printf '%q' "$1"; }

# Fail fast on hosts that do not answer, before building anything.
for host in "${hosts[@]}"; do
  out=$("${ssh_cmd[@]}" "$host" 'id -u' 2>&1) ||
    die "cannot reach $host over ssh ($(tail -n 1 <<<"$out")): check the host, its key and SSH_OPTS (tried: ${ssh_cmd[*]} $host)"
  [ "$(tail -n 1 <<<"$out")" = 0 ] || die "$host: the ssh user is not root; the suite runs a kubelet there (use root@$host)"
done

log "building what the hosts run (tree, kubelet, e2e_node.test, images, tools)"
"$ROOT/hack/tree.sh"
"$ROOT/hack/build.sh" kubelet e2e_node.test
"$E2E_DIR/images.sh" --build-only
cri=$(project_tool cri)
summary=$(project_tool junitsummary)

# The archive: the repository's layout, so that the node scripts find their libraries, binaries
# and images where they look for them.
stage=$E2E_OUT/remote/stage
rm -rf "$stage"
mkdir -p "$stage/hack" "$stage/e2e-node" "$stage/_output/bin" "$stage/_output/e2e/images" "$stage/_output/tools/bin"
cp "$ROOT/hack/lib.sh" "$ROOT/hack/cache.sh" "$ROOT/hack/upstream.env" "$stage/hack/"
cp "$E2E_DIR"/{lib.sh,containerd.sh,images.sh,run-e2e-node.sh} "$stage/e2e-node/"
ln "$BIN/kubelet" "$BIN/e2e_node.test" "$stage/_output/bin/" 2>/dev/null || cp "$BIN/kubelet" "$BIN/e2e_node.test" "$stage/_output/bin/"
cp "$E2E_OUT"/images/*.tar "$stage/_output/e2e/images/"
cp "$cri" "$stage/_output/tools/bin/"
info "archive: $(du -shL "$stage" | cut -f1) (sent compressed)"

run_args=(--prebuilt-images --dir /tmp/e2e-node)
[ -z "$SKIP" ] || run_args+=(--skip "$SKIP")
run_args+=("$FOCUS")
remote_run="cd $(q "$REMOTE_DIR") && FEATURE_GATES=$(q "$FEATURE_GATES") ${TIMEOUT:+TIMEOUT=$(q "$TIMEOUT") }KEEP_DIR=$(q "$REMOTE_DIR/_output/e2e/report") e2e-node/run-e2e-node.sh"
for a in "${run_args[@]}"; do remote_run+=" $(q "$a")"; done
stamp=$(date +%Y%m%d-%H%M%S)

# run_host HOST KEEP: ships the archive, runs the suite, fetches the report; the exit status is
# junitsummary's (or the failing step's).
run_host() {
  local host=$1 keep=$2 start=$SECONDS rc=0
  remote() { "${ssh_cmd[@]}" "$host" "$@"; }
  log "$host: sending the archive to $REMOTE_DIR"
  tar -C "$stage" -chf - . | gzip -1 |
    remote "set -e; mkdir -p $(q "$REMOTE_DIR"); cd $(q "$REMOTE_DIR"); rm -rf hack e2e-node _output; gzip -dc | tar -xmf -" ||
    { warn "$host: cannot send the archive"; return 1; }
  info "$host: sent in $((SECONDS - start))s"
  log "$host: running the suite (FOCUS=$FOCUS${SKIP:+ SKIP=$SKIP})"
  # Its progress lines, prefixed with the host; all of it in run.log.
  remote "$remote_run" 2>&1 | tee "$keep/run.log" | sed -u "s|^|    [${host#ssh://}] |" >&2 || rc=$?
  log "$host: run-e2e-node.sh exited $rc after $((SECONDS - start))s"
  remote "cd $(q "$REMOTE_DIR/_output/e2e/report") && tar -cf - ." | tar -C "$keep" -xf - ||
    warn "$host: no report came back"
  local reports=()
  mapfile -t reports < <(find "$keep" -name 'junit*.xml' | sort)
  if [ ${#reports[@]} = 0 ]; then
    warn "$host: the suite wrote no JUnit report; last lines of $keep/run.log:"
    tail -n 20 "$keep/run.log" >&2
    return 1
  fi
  "$summary" ${MUST_RUN:+-must-run "$MUST_RUN"} "${reports[@]}" >"$keep/summary.txt" || rc=1
  return "$rc"
}

declare -A pids keeps
for host in "${hosts[@]}"; do
  keep=$E2E_OUT/remote/$(tr -c 'A-Za-z0-9.@\n-' '_' <<<"${host#ssh://}")/$stamp
  mkdir -p "$keep"
  keeps[$host]=$keep
  run_host "$host" "$keep" &
  pids[$host]=$!
done
failed=0
for host in "${hosts[@]}"; do
  rc=0
  wait "${pids[$host]}" || rc=$?
  keep=${keeps[$host]}
  log "$host: $([ "$rc" = 0 ] && echo passed || echo "FAILED (exit $rc)"); report and logs in $keep"
  [ ! -s "$keep/summary.txt" ] || sed 's/^/    /' "$keep/summary.txt" >&2
  [ "$rc" = 0 ] || failed=$((failed + 1))
done
[ "$failed" = 0 ] || die "$failed of ${#hosts[@]} host(s) failed"
log "all ${#hosts[@]} host(s) passed"
