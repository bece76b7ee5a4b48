#!/usr/bin/env bash
# Upstream's small verify scripts listed in upstream-checks.list (each a grep, a git query or a small
# Go program of the tree, offline), run in the tree one after the other; fails naming every one
# that fails.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
apt_install jq jq
failed=()
while read -r script args; do
  case $script in "" | "#"*) continue ;; esac
  start=$(date +%s)
  # shellcheck disable=SC2086 # args are words
  if (run_upstream_check "$script" $args) >"${TMPDIR:-/tmp}/prm-upstream-check.$$" 2>&1; then
    info "$script passed ($(($(date +%s) - start))s)"
  else
    sed 's/^/    /' "${TMPDIR:-/tmp}/prm-upstream-check.$$" >&2
    info "$script FAILED ($(($(date +%s) - start))s)"
    failed+=("$script")
  fi
done <"$(dirname "${BASH_SOURCE[0]}")/upstream-checks.list"
rm -f "${TMPDIR:-/tmp}/prm-upstream-check.$$"
[ ${#failed[@]} -eq 0 ] || die "upstream checks failed: ${failed[*]}"
