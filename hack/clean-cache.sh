#!/usr/bin/env bash
# Empties the project's build cache outside the checkout (hack/cache.sh: $PRM_CACHE, by default
# ~/.cache/pluggable-rm): assembled trees, the series applied on them, tools, binaries and the
# guest image, and removes the kind base and node images the Docker engine keeps under the
# project's names. Go's own caches (go env GOCACHE GOMODCACHE) stay: `go clean -cache` empties them.
#
# Usage: hack/clean-cache.sh        (make clean-cache)
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case ${1:-} in
-h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) die "unknown argument $1 (see --help)" ;;
esac

if [ -d "$PRM_CACHE" ]; then
  log "removing $PRM_CACHE ($(du -sh "$PRM_CACHE" 2>/dev/null | cut -f1))"
  chmod -R u+w "$PRM_CACHE" 2>/dev/null || true
  rm -rf "$PRM_CACHE"
else
  log "no cache at $PRM_CACHE"
fi
. "$ROOT/hack/kind/lib.sh"
if docker_available; then
  mapfile -t images < <(docker images --format '{{.Repository}}:{{.Tag}}' |
    grep -E "^($NODE_IMAGE_REPO|$BASE_IMAGE_REPO):" || true)
  if [ ${#images[@]} -gt 0 ]; then
    log "removing the kind images: ${images[*]}"
    docker rmi "${images[@]}" >/dev/null
  fi
fi
