#!/usr/bin/env bash
# Verifies the series from scratch, in a directory of its own beside the build cache:
#   1. upstream is assembled and every patch applies with `git am` (no fuzz, no whitespace errors),
#      from scratch unless the cache outside the checkout has that very result (hack/cache.sh:
#      keyed by the release, the patches and the code that assembles and applies them);
#   2. exporting the result reproduces patches/ and staging/ byte for byte;
#   3. every hack/verify.d/ check (generated code, upstream's gofmt and linters, ...) passes on the
#      result.
#
# Usage: hack/verify.sh [--keep]     (--keep leaves the tree it checked for inspection, until the
#                                    next make verify)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

keep=false
case ${1:-} in
-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--keep) keep=true ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac

# The checks run at one path on this machine, beside the build cache: golangci-lint keys its cache
# of results on each file's absolute path (and content), so a new path every run would lint every
# package anew. One make verify at a time uses it (a lock; a second one waits).
work=$PRM_CACHE/verify/run
mkdir -p "$PRM_CACHE/verify"
exec {verify_lock}>>"$PRM_CACHE/verify/lock"
if ! flock -n "$verify_lock"; then
  info "waiting for another make verify on this machine ($work)"
  flock "$verify_lock"
fi
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
mkdir -p "$work"
$keep || trap 'chmod -R u+w "$work" 2>/dev/null || true; rm -rf "$work"' EXIT
failed=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failed=1; }

# The series applied on a freshly assembled upstream: made from scratch when the cache (hack/cache.sh)
# has no tree for exactly this release and these patches, reused otherwise. The checks run on a
# copy, since some (generated code) rewrite files to compare them.
entry=$(series_entry) || { fail "the series does not apply to upstream $KUBE_VERSION"; exit 1; }
TREE=$work/kubernetes
log "copying the series tree into $TREE"
copy_tree "$entry" "$TREE"
step_done "assemble upstream, apply the series"

log "checking that export reproduces patches/ and staging/"
export_series "$TREE" "$work/patches"
"$ROOT/hack/export-staging.sh" "$TREE" "$work/staging"
if ! diff -r -u "$PATCHES" "$work/patches" >"$work/patches.diff"; then
  fail "exporting the applied series does not reproduce patches/ (first lines of the difference):"
  sed -e "s#$work/patches#exported#g" "$work/patches.diff" | head -n 40 >&2
fi
if ! diff -r -u -x README.md "$STAGING_OUT" "$work/staging" >"$work/staging.diff"; then
  fail "staging/ is not what the series exports (run make export):"
  sed -e "s#$work/staging#exported#g" "$work/staging.diff" | head -n 40 >&2
fi

for check in "$VERIFY_D"/*.sh; do
  [ -e "$check" ] || continue
  log "$(basename "$check")"
  TREE=$TREE "$check" || fail "$(basename "$check")"
  step_done "$(basename "$check")"
done
print_step_times "make verify: the time of each step"

if [ $failed -ne 0 ]; then
  $keep && info "the tree is kept in $TREE"
  die "verify failed"
fi
log "verify passed: $(series_files | wc -l) patches on $KUBE_VERSION"
