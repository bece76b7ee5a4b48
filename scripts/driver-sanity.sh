#!/usr/bin/env bash
# Runs the driver sanity suite (sanity/, the driver-sanity command) against the project's drivers:
# builds driver-sanity and each driver, starts the driver on sockets in a directory of its own,
# plays the kubelet against it (nothing else: no kubelet, no root needed), and stops it. One line
# per driver: N passed, N failed, N skipped. make test runs it (make driver-sanity too).
#
# Usage: scripts/driver-sanity.sh [-h|--help] [DRIVER...]   (default: all three)
#   example      drivers/example (cpu.example.com)
#   minimal      drivers/minimal (minimal.example.com)
#   test-driver  the node e2e tests' driver, as its resource-test-driver command from the tree
#                (test/e2e_node/resourcedriver; built with hack/build.sh)
#
# A driver of your own: start it, then point driver-sanity (built into _output/bin) at its sockets:
#   _output/bin/driver-sanity --endpoint unix:///var/lib/kubelet/plugins/NAME/driver.sock \
#       --registration-socket /var/lib/kubelet/plugins_registry/NAME-reg.sock
#
# Environment: SANITY_ARGS (more driver-sanity flags, for example --ginkgo.v or --cpus 0-1).
# JUnit reports and the drivers' logs go to _output/sanity/<driver>/.
set -o errexit -o nounset -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../hack/lib.sh"

case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
drivers=("$@")
[ ${#drivers[@]} -gt 0 ] || drivers=(example minimal test-driver)
for d in "${drivers[@]}"; do
  case $d in example | minimal | test-driver) ;; *) die "unknown driver $d: example, minimal or test-driver (see --help)" ;; esac
done

out=$ROOT/_output/sanity
mkdir -p "$out" "$BIN"
log "building driver-sanity and the drivers"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN/driver-sanity" ./sanity/cmd/driver-sanity)
summary=$(project_tool junitsummary)

# start_driver NAME DIR: starts the driver; sets pid and registration (its registration socket).
start_driver() {
  local name=$1 dir=$2
  case $name in
  example)
    (cd "$ROOT" && CGO_ENABLED=0 go build -o "$out/bin/example" ./drivers/example)
    "$out/bin/example" --plugin-dir "$dir" --registry-dir "$dir" >"$dir.log" 2>&1 &
    registration=cpu.example.com-reg.sock ;;
  minimal)
    (cd "$ROOT" && CGO_ENABLED=0 go build -o "$out/bin/minimal" ./drivers/minimal)
    "$out/bin/minimal" --plugin-dir "$dir" --registry-dir "$dir" >"$dir.log" 2>&1 &
    registration=minimal.example.com-reg.sock ;;
  test-driver)
    "$ROOT/hack/build.sh" resource-test-driver >&2
    "$BIN/resource-test-driver" --plugin-dir "$dir" --registry-dir "$dir" >"$dir.log" 2>&1 &
    registration=test-driver.resource-manager.e2e.k8s.io-reg.sock ;;
  esac
  pid=$!
}

failed=()
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true' EXIT
for d in "${drivers[@]}"; do
  dir=$out/$d
  rm -rf "$dir" "$dir.log" && mkdir -p "$dir"
  log "driver-sanity against $d"
  start_driver "$d" "$dir"
  for _ in $(seq 100); do
    [ -S "$dir/$registration" ] || ! kill -0 "$pid" 2>/dev/null || { sleep 0.1; continue; }
    break
  done
  [ -S "$dir/$registration" ] || die "driver $d did not create $dir/$registration; its log ($dir.log):$(echo; tail -n 20 "$dir.log")"
  start=$SECONDS
  # shellcheck disable=SC2086 # SANITY_ARGS is a list of flags
  "$BIN/driver-sanity" --endpoint "unix://$dir/driver.sock" --registration-socket "$dir/$registration" \
    --ginkgo.no-color --ginkgo.junit-report "$dir/junit.xml" ${SANITY_ARGS:-} >"$dir/output.txt" 2>&1 || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  if [ ! -f "$dir/junit.xml" ]; then
    cat "$dir/output.txt" >&2
    die "driver-sanity against $d wrote no report"
  fi
  if result=$("$summary" "$dir/junit.xml"); then
    info "$d: $(tail -n 1 <<<"$result") in $((SECONDS - start))s"
  else
    sed -n '/^Summarizing/,$p' "$dir/output.txt" >&2
    grep -B2 -A8 '\[FAILED\]' "$dir/output.txt" | head -n 80 >&2 || true
    info "$d: $(tail -n 1 <<<"$result") in $((SECONDS - start))s (output: $dir/output.txt, the driver's log: $dir.log)"
    failed+=("$d")
  fi
done
[ ${#failed[@]} -eq 0 ] || die "driver-sanity failed against: ${failed[*]}"
log "driver-sanity passed against: ${drivers[*]}"
