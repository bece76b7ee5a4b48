#!/usr/bin/env bash
# Assembles the pinned upstream Kubernetes into _output/kubernetes and applies the series.
#
# Usage: hack/tree.sh [--force]
#
# The tree is a git repository: its first commit (tag "upstream") is k8s.io/kubernetes at the pinned
# version (hack/upstream.env) with every staging module from the Go module proxy; on top, one commit
# per patch of patches/. Re-running reuses the tree when neither the pin nor the series changed.
# Both the assembled upstream and the series applied on it are kept in the cache outside the
# checkout (hack/cache.sh), keyed by the release and the patches: a new checkout copies them.
#
# A tree with commits or edits that are not in patches/ is never thrown away: export them first
# (make export), or pass --force to discard them.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

force=false
for arg in "$@"; do
  case $arg in
  --force) force=true ;;
  -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument $arg (see --help)" ;;
  esac
done

if [ -d "$TREE/.git" ]; then
  if [ "$(stamp_value fingerprint)" = "$(series_fingerprint)" ]; then
    log "tree $TREE is up to date with $KUBE_VERSION and $(series_files | wc -l) patches: nothing to do"
    exit 0
  fi
  if tree_has_local_work && ! $force; then
    tgit status --short | head -n 20 >&2
    die "$TREE has commits or edits that are not in patches/.
  Export them first (make export), or discard them (make tree FORCE=1)."
  fi
fi

# The series applied on upstream, from the cache (hack/cache.sh): assembled and applied only when
# no run on this machine did it before for the same release and patches.
entry=$(series_entry)
log "copying the series tree into $TREE"
chmod -R u+w "$TREE" 2>/dev/null || true
rm -rf "$TREE"
mkdir -p "$(dirname "$TREE")"
copy_tree "$entry" "$TREE"
write_stamp
log "tree ready: $TREE ($(tgit rev-list --count upstream..HEAD) patches on $KUBE_VERSION)"
