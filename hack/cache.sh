# shellcheck shell=bash
# The project's build cache, outside the checkout, for everything deterministic: the assembled
# upstream tree, the series applied on it, tools, binaries, the guest image (the kind images live in
# the Docker engine, tagged with the hash of their inputs). Sourced by hack/lib.sh; do not run it.
#
# An entry is a directory $PRM_CACHE/KIND/KEY, where KEY is a hash of the entry's exact inputs, so a
# hit can never hide a change. It is written under a temporary name and renamed into place only when
# complete, with a manifest (every file's size and sha256, or a validator of the kind's own for
# trees), so an entry of a build that was killed is never seen, and one damaged afterwards is found
# on its next use, removed and built again. A lock per entry makes two runs that want the same
# entry build it once. Entries not used for longest go first when the cache grows past its cap.
#
# Environment:
#   PRM_CACHE      the cache directory (default: ${XDG_CACHE_HOME:-~/.cache}/pluggable-rm)
#   PRM_CACHE_MAX  its size cap in GiB (default 60); checked after each new entry
#   PRM_CACHE_OFF  1: use no entry (every step builds, into a scratch entry that is then stored)

PRM_CACHE=${PRM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pluggable-rm}
PRM_CACHE_MAX=${PRM_CACHE_MAX:-60}

# cache_key: a key from what is read on stdin (the inputs, or their hashes), 20 hex digits.
cache_key() { sha256sum | cut -c1-20; }

# cache_path KIND KEY: where the entry is (whether or not it exists).
cache_path() { printf '%s/%s/%s\n' "$PRM_CACHE" "$1" "$2"; }

# cache_say WORD KIND KEY WHAT: the line each step prints: "WHAT: reused (key KIND/KEY)", or built.
cache_say() { printf '    %s: %s (key %s/%s)\n' "$4" "$1" "$2" "$3" >&2; }

# cache_valid DIR [VALIDATOR]: the entry is complete and intact. Its manifest lists every file
# (size and sha256); entries with a VALIDATOR (a command given DIR) are checked by it instead of
# hashing (a tree is checked by git, which compares what it tracks).
cache_valid() {
  local dir=$1 validator=${2:-}
  [ -f "$dir/.prm-complete" ] || return 1
  if [ -n "$validator" ]; then
    "$validator" "$dir"
    return
  fi
  [ -f "$dir/.prm-manifest" ] && [ -f "$dir/.prm-large" ] || return 1
  if [ -s "$dir/.prm-manifest" ]; then
    (cd "$dir" && sha256sum --quiet --strict -c .prm-manifest >/dev/null 2>&1) || return 1
  fi
  [ "$(cache_large_files "$dir")" = "$(cat "$dir/.prm-large")" ] || return 1
  # No file was added either.
  [ "$(cd "$dir" && find . -type f ! -name '.prm-*' | wc -l)" -eq "$(cat "$dir/.prm-manifest" "$dir/.prm-large" | wc -l)" ]
}

# Files over 1 GiB (a disk image, mostly holes) are recorded by size and modification time, not
# hashed on every use; nothing writes to them once the entry is complete (qemu opens the guest's
# disk with snapshot=on).
CACHE_LARGE=+1048576k
cache_large_files() { (cd "$1" && find . -type f -size "$CACHE_LARGE" ! -name '.prm-*' -printf '%s %T@ %p\n' | LC_ALL=C sort -k3); }

# cache_lookup KIND KEY WHAT [VALIDATOR]: prints the entry's path and says "reused" when it is
# there and intact; removes an incomplete or damaged one (saying so) and fails otherwise. Call it
# with the entry's lock held (as cached does).
cache_lookup() {
  local kind=$1 key=$2 what=$3 validator=${4:-} dir
  dir=$(cache_path "$kind" "$key")
  [ "${PRM_CACHE_OFF:-}" != 1 ] || return 1
  [ -e "$dir" ] || return 1
  if ! cache_valid "$dir" "$validator"; then
    warn "cache entry $dir is incomplete or damaged: removing it, building it again"
    chmod -R u+w "$dir" 2>/dev/null || true
    rm -rf "$dir"
    return 1
  fi
  touch "$dir/.prm-complete" # its last use, for eviction
  cache_say reused "$kind" "$key" "$what"
  printf '%s\n' "$dir"
}

# cache_begin KIND KEY: a new empty directory to build the entry in; prints it. Leftovers of builds
# that were killed (their process is gone) are removed first.
cache_begin() {
  local kind=$1 key=$2 d pid
  mkdir -p "$PRM_CACHE/$kind"
  for d in "$PRM_CACHE/$kind"/.tmp.*; do
    [ -e "$d" ] || continue
    pid=${d##*.}
    kill -0 "$pid" 2>/dev/null && continue
    chmod -R u+w "$d" 2>/dev/null || true
    rm -rf "$d"
  done
  d=$PRM_CACHE/$kind/.tmp.$key.$$
  rm -rf "$d"
  mkdir -p "$d"
  printf '%s\n' "$d"
}

# cache_commit KIND KEY TMP WHAT [--no-manifest]: makes TMP (from cache_begin) the entry: writes
# its manifest (unless the kind has a validator of its own), marks it complete and renames it into
# place; prints its path and says "built". Then keeps the cache under its cap.
cache_commit() {
  local kind=$1 key=$2 tmp=$3 what=$4 manifest=${5:-} dir
  dir=$(cache_path "$kind" "$key")
  if [ "$manifest" != --no-manifest ]; then
    (cd "$tmp" && find . -type f ! -size "$CACHE_LARGE" ! -name '.prm-*' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) >"$tmp/.prm-manifest"
    cache_large_files "$tmp" >"$tmp/.prm-large"
  fi
  date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.prm-complete"
  chmod -R u+w "$dir" 2>/dev/null || true
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
  cache_say built "$kind" "$key" "$what"
  cache_evict "$dir"
  printf '%s\n' "$dir"
}

# cache_evict [KEEP...]: while the cache is over PRM_CACHE_MAX GiB, removes the entries used least
# recently (never those given, nor one used in the last hour: a run in progress may need it).
cache_evict() {
  local max=$((PRM_CACHE_MAX * 1024 * 1024)) used entry
  [ -d "$PRM_CACHE" ] || return 0
  used=$(du -sk "$PRM_CACHE" 2>/dev/null | cut -f1)
  [ "$used" -gt "$max" ] || return 0
  while read -r entry; do
    [ "$used" -gt "$max" ] || break
    [[ " $* " != *" $entry "* ]] || continue
    [ -n "$(find "$entry/.prm-complete" -mmin -60 2>/dev/null)" ] && continue
    used=$((used - $(du -sk "$entry" | cut -f1)))
    info "cache over ${PRM_CACHE_MAX} GiB: removing $entry (least recently used)"
    chmod -R u+w "$entry" 2>/dev/null || true
    rm -rf "$entry"
  done < <(find "$PRM_CACHE" -mindepth 3 -maxdepth 3 -name .prm-complete -printf '%T@ %h\n' | sort -n | cut -d' ' -f2-)
}

# cached KIND KEY WHAT BUILD_FN [VALIDATOR]: the entry's path, built by BUILD_FN DIR when it is
# missing or damaged (DIR is the empty directory to fill). The one entry point for most callers.
cached() {
  local kind=$1 key=$2 what=$3 build=$4 validator=${5:-} dir tmp lock
  # The entry's lock: a second run that wants the same entry waits, then finds it built. Locks of
  # different entries nest (a series tree needs its upstream tree).
  mkdir -p "$PRM_CACHE/$kind"
  exec {lock}>>"$PRM_CACHE/$kind/.$key.lock"
  if ! flock -n "$lock"; then
    info "waiting for another run that builds $what ($kind $key)"
    flock "$lock"
  fi
  if dir=$(cache_lookup "$kind" "$key" "$what" "$validator"); then
    exec {lock}>&-
    printf '%s\n' "$dir"
    return 0
  fi
  tmp=$(cache_begin "$kind" "$key")
  # In a subshell of its own with errexit on: a failing step fails the build, wherever it is called.
  local rc=0 errexit=false
  [[ $- != *e* ]] || errexit=true
  set +o errexit
  (set -o errexit; "$build" "$tmp") >&2
  rc=$?
  ! $errexit || set -o errexit
  if [ $rc -ne 0 ]; then
    chmod -R u+w "$tmp" 2>/dev/null || true
    rm -rf "$tmp"
    exec {lock}>&-
    die "building $what failed"
  fi
  if [ -n "$validator" ]; then
    dir=$(cache_commit "$kind" "$key" "$tmp" "$what" --no-manifest)
  else
    dir=$(cache_commit "$kind" "$key" "$tmp" "$what")
  fi
  exec {lock}>&-
  printf '%s\n' "$dir"
}
