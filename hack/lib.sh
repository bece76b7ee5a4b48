# Common settings and helpers for the hack/ scripts. Source it; do not run it.
#
# Paths can be overridden from the environment (the project's tests do, to run the tooling on a
# small fake upstream):
#   TREE         the assembled upstream tree            (default: _output/kubernetes)
#   PATCHES      the patch series                        (default: patches)
#   STAGING_LIST what make export copies to staging/     (default: hack/staging.list)
#   VERIFY_D     the checks make verify runs on the patched tree (default: hack/verify.d)
#   UPSTREAM_SRC a directory with one subdirectory per release (e.g. v1.37.2/) to use instead of
#                the Go module proxy (tests only)

set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PIN_FILE=${PIN_FILE:-$ROOT/hack/upstream.env}
TREE=${TREE:-$ROOT/_output/kubernetes}
PATCHES=${PATCHES:-$ROOT/patches}
STAGING_OUT=${STAGING_OUT:-$ROOT/staging}
STAGING_LIST=${STAGING_LIST:-$ROOT/hack/staging.list}
BIN=${BIN:-$ROOT/_output/bin}
VERIFY_D=${VERIFY_D:-$ROOT/hack/verify.d}
UPSTREAM_SRC=${UPSTREAM_SRC:-}

# shellcheck source=upstream.env
. "$PIN_FILE"
# shellcheck source=cache.sh
. "$ROOT/hack/cache.sh"

# Identity and date of the synthetic "upstream" commit: fixed, so that assembling the same release
# twice gives the same commit id (and rebases compare like with like).
UPSTREAM_IDENT_NAME="Kubernetes upstream"
UPSTREAM_IDENT_EMAIL="upstream@kubernetes.invalid"
UPSTREAM_DATE="2000-01-01T00:00:00Z"
# Identity of commits made inside the tree (the series' author and `git am`'s committer).
SERIES_IDENT_NAME="Pluggable Resource Management maintainers"
SERIES_IDENT_EMAIL="maintainers@pluggable-rm.invalid"

# Options that make format-patch independent of the user's git configuration.
FORMAT_PATCH_OPTS=(--zero-commit --no-signature --no-numbered --abbrev=12 --no-renames --binary
  --diff-algorithm=myers -U3 --inter-hunk-context=0 --no-color --no-ext-diff)
GIT_NEUTRAL=(-c diff.noprefix=false -c diff.mnemonicPrefix=false -c diff.relative=false
  -c format.signature= -c format.coverLetter=false -c format.headers= -c core.abbrev=12
  -c format.outputDirectory= -c format.forceInBodyFrom=false -c format.filenameMaxLength=64
  -c core.quotePath=true -c log.showSignature=false)

log() { printf '==> %s\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Step times of a long run (make verify, make test, .ci/run), printed at its end: where the time
# went, in the last lines of a CI log.
STEP_TIMES=()
step_start=$SECONDS
# step_line SECONDS NAME: one line of the step times.
step_line() { printf '%6ds  %s' "$1" "$2"; }
# step_done NAME: records the time since the last step_done (or the start) under NAME.
step_start_epoch=$(date +%s)
step_done() {
  STEP_TIMES+=("$(step_line $((SECONDS - step_start)) "$1")")
  step_span "$step_start_epoch" "$(date +%s)" "${STEP_PREFIX:-}$1"
  step_start=$SECONDS
  step_start_epoch=$(date +%s)
}

# step_span START END NAME: appends a step's span (seconds since the epoch) to STEP_SPANS_FILE when
# it is set: .ci/run prints them all as one table, with the critical path marked (print_spans).
step_span() {
  [ -z "${STEP_SPANS_FILE:-}" ] || printf '%s %s %s\n' "$1" "$2" "$3" >>"$STEP_SPANS_FILE"
}

# print_spans FILE: the steps of FILE (step_span's lines) in the order they started, each with its
# start and end (minutes:seconds from the first start) and its time; the critical path is marked
# "*": the step that ended last, then the one that ended last before that one started, and so on
# (a step that ran beside it, in the background, is off the path).
print_spans() {
  [ -s "$1" ] || return 0
  LC_ALL=C sort -n -k1,1 -k2,2 "$1" | awk '
    function mmss(s) { return sprintf("%3d:%02d", int(s / 60), s % 60) }
    { start[NR] = $1; end[NR] = $2; $1 = ""; $2 = ""; sub(/^  /, ""); name[NR] = $0
      if (NR == 1 || start[NR] < t0) t0 = start[NR] }
    END {
      # Walk back from the end: the latest-ending step that ended before the current one started
      # (1 s slack for rounding) is the one it waited for.
      cur = 0
      for (i = 1; i <= NR; i++) if (cur == 0 || end[i] > end[cur]) cur = i
      while (cur) {
        crit[cur] = 1; best = 0
        for (i = 1; i <= NR; i++)
          if (i != cur && !crit[i] && end[i] <= start[cur] + 1 && (best == 0 || end[i] > end[best])) best = i
        cur = best
      }
      printf "  start    end   took  step (* on the critical path)\n"
      for (i = 1; i <= NR; i++)
        printf "%s %s %6ds %s %s\n", mmss(start[i] - t0), mmss(end[i] - t0), end[i] - start[i], crit[i] ? "*" : " ", name[i]
    }'
}
# print_step_times TITLE: prints the recorded step times under TITLE, and appends them to
# STEP_TIMES_FILE when it is set (.ci/run prints that file last).
print_step_times() {
  [ ${#STEP_TIMES[@]} -gt 0 ] || return 0
  log "$1"
  printf '%s\n' "${STEP_TIMES[@]}" >&2
  [ -z "${STEP_TIMES_FILE:-}" ] || { echo "$1"; printf '%s\n' "${STEP_TIMES[@]}"; } >>"$STEP_TIMES_FILE"
}

# The host sysctls a kubelet sets when it starts (its kernel tunables and the root keyring quotas).
# A kubelet run here, or in a kind node (whose /proc/sys is the host's), changes them: the scripts
# that run one save them first and put them back afterwards.
KUBELET_SYSCTLS=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes)

# save_sysctls FILE: writes the kubelet's host sysctls with their current values to FILE.
save_sysctls() {
  local k
  for k in "${KUBELET_SYSCTLS[@]}"; do echo "$k=$(cat "/proc/sys/$k")"; done >"$1"
}

# restore_sysctls FILE: puts back the values save_sysctls wrote to FILE, if it is there.
restore_sysctls() {
  local kv
  [ -f "$1" ] || return 0
  while IFS= read -r kv; do
    echo "${kv#*=}" >"/proc/sys/${kv%%=*}" 2>/dev/null || warn "cannot restore sysctl ${kv%%=*}"
  done <"$1"
  info "restored the host sysctls a kubelet changes: $(tr '\n' ' ' <"$1")"
}

# apt_get ARG...: apt-get, one at a time: lanes of make test run side by side and may install at
# the same moment, and a second apt-get fails at once on dpkg's lock. The project's runs queue on
# a lock of their own; others' runs are waited for through apt's lock timeout.
apt_get() {
  (
    flock -w 900 9 || die "waited 15 minutes for another apt-get of this project ($APT_LOCK)"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
  ) 9>>"$APT_LOCK"
}
APT_LOCK=${TMPDIR:-/tmp}/pluggable-rm-apt.lock

# apt_install CMD_OR_FILE PACKAGE...: installs the Debian packages when CMD_OR_FILE (a command on
# PATH, or an absolute path) is missing.
apt_install() {
  local what=$1
  shift
  if [ -e "$what" ] || { [ "${what#/}" = "$what" ] && command -v "$what" >/dev/null; }; then
    return 0
  fi
  log "installing Debian packages: $*"
  # Without fresh package lists (a fresh machine), the first try fails: update, then try again.
  if ! apt_get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; then
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "$@" >/dev/null
  fi
}

# The project's Debian root file systems (the kind base image, the multi-NUMA test guest): mmdebstrap
# options for a small bookworm without recommends, docs or locales, and the suite with its sources.
MMDEBSTRAP_OPTS=(--quiet --variant=minbase --mode=root --aptopt='APT::Install-Recommends "false"'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*')
DEBIAN_SOURCES=("deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main")

# debian_rootfs TARGET MMDEBSTRAP_OPTION...: a Debian bookworm root file system in TARGET (a
# directory or a tarball, per --format), at nice 10, from Debian's mirror.
debian_rootfs() {
  local target=$1
  shift
  apt_install mmdebstrap mmdebstrap
  nice -n 10 mmdebstrap "${MMDEBSTRAP_OPTS[@]}" "$@" bookworm "$target" "${DEBIAN_SOURCES[@]}" ||
    die "mmdebstrap failed (it needs Debian's package mirror)"
}

# go_tool_build PKG_DIR OUT: builds the project's Go command in PKG_DIR (relative to ROOT, e.g.
# hack/tools/ociimage) into OUT when OUT is missing or older than its sources; prints OUT.
go_tool_build() {
  local src=$ROOT/$1 out=$2
  # A host of the remote runner gets the built tools without their sources.
  if [ ! -d "$src" ] && [ -x "$out" ]; then
    printf '%s\n' "$out"
    return 0
  fi
  [ -d "$src" ] || die "no Go command in $src"
  if [ ! -x "$out" ] || [ -n "$(find "$src" -newer "$out" -name '*.go' -print -quit)" ]; then
    command -v go >/dev/null || die "go is not on PATH (needed to build $1)"
    info "building ${out##*/} ($1)"
    mkdir -p "$(dirname "$out")"
    # Under a temporary name, then renamed: make verify and make test may build it at once.
    (cd "$ROOT" && CGO_ENABLED=0 go build -o "$out.tmp.$$" "./$1") >&2
    mv -f "$out.tmp.$$" "$out"
  fi
  printf '%s\n' "$out"
}

# project_tool NAME: the project's Go command NAME (hack/tools/NAME or e2e-node/cmd/NAME), built
# once into _output/tools/bin for every script that uses it, again when its sources are newer.
project_tool() {
  local src=hack/tools/$1
  [ -d "$ROOT/$src" ] || src=e2e-node/cmd/$1
  go_tool_build "$src" "$ROOT/_output/tools/bin/$1"
}

tgit() { git -C "$TREE" "${GIT_NEUTRAL[@]}" "$@"; }

# The patches of the series, in order.
series_files() { find "$PATCHES" -maxdepth 1 -name '*.patch' | LC_ALL=C sort; }

# A fingerprint of the pin and the series: the tree is reused when it did not change.
series_fingerprint() {
  { cat "$PIN_FILE"; series_files | while read -r p; do basename "$p"; cat "$p"; done; } | sha256sum | cut -c1-16
}

stamp_file() { echo "$TREE/.git/prm-stamp"; }

# write_stamp records what the tree was made from and its HEAD, so a later run can tell a tree that
# only needs re-applying from one that holds local, unexported work.
write_stamp() {
  printf 'fingerprint=%s\nhead=%s\n' "$(series_fingerprint)" "$(tgit rev-parse HEAD)" >"$(stamp_file)"
}

stamp_value() { sed -n "s/^$1=//p" "$(stamp_file)" 2>/dev/null || true; }

# tree_has_local_work: the tree moved since it was last applied or exported, or has edits.
tree_has_local_work() {
  [ -d "$TREE/.git" ] || return 1
  [ "$(tgit rev-parse HEAD)" != "$(stamp_value head)" ] && return 0
  [ -n "$(tgit status --porcelain --untracked-files=normal)" ] && return 0
  return 1
}

# staging_version_for v1.37.2 -> v0.37.2
staging_version_for() { echo "v0.${1#v1.}"; }

# module_dir MODULE VERSION: the module's directory in the Go module cache (downloaded if needed).
# Prints nothing and returns 2 when the proxy does not serve that module version.
module_dir() {
  local out
  if ! out=$(cd / && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$1@$2" 2>&1); then
    if grep -qE 'not available|not found|unknown revision|410 Gone|404 Not Found|403 Forbidden' <<<"$out"; then
      return 2
    fi
    printf '%s\n' "$out" >&2
    die "cannot download $1@$2 from the Go module proxy (see above)"
  fi
  local dir
  dir=$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' <<<"$out")
  # Never hand back an empty or foreign path: callers copy from it.
  if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
    printf '%s\n' "$out" >&2
    die "go mod download $1@$2 gave no module directory"
  fi
  echo "$dir"
}

# assemble_upstream VERSION DEST: writes k8s.io/kubernetes@VERSION plus its staging modules into DEST
# (which must not exist), as plain files.
assemble_upstream() {
  local version=$1 dest=$2 staging_version src name dir rc
  staging_version=$(staging_version_for "$version")
  mkdir -p "$dest"
  if [ -n "$UPSTREAM_SRC" ]; then
    [ -d "$UPSTREAM_SRC/$version" ] || die "UPSTREAM_SRC has no $version/"
    info "copying upstream from $UPSTREAM_SRC/$version (UPSTREAM_SRC is set)"
    cp -a "$UPSTREAM_SRC/$version/." "$dest/"
  else
    info "downloading k8s.io/kubernetes@$version"
    rc=0
    src=$(module_dir k8s.io/kubernetes "$version") || rc=$?
    [ $rc -eq 2 ] && die "the Go module proxy does not serve k8s.io/kubernetes@$version"
    [ $rc -eq 0 ] || exit 1
    cp -r "$src/." "$dest/"
    chmod -R u+w "$dest"
    for name in $(sed -n 's#^\s*k8s.io/\([^ ]*\) => ./staging/src/k8s.io/.*#\1#p' "$dest/go.mod"); do
      rc=0
      dir=$(module_dir "k8s.io/$name" "$staging_version") || rc=$?
      mkdir -p "$dest/staging/src/k8s.io/$name"
      [ $rc -eq 0 ] || [ $rc -eq 2 ] || exit 1
      if [ $rc -eq 2 ]; then
        info "k8s.io/$name@$staging_version is not served: writing a stub go.mod"
        printf 'module k8s.io/%s\n\ngo %s\n' "$name" "$(sed -n 's/^go //p' "$dest/go.mod")" \
          >"$dest/staging/src/k8s.io/$name/go.mod"
        continue
      fi
      info "k8s.io/$name@$staging_version"
      cp -r "$dir/." "$dest/staging/src/k8s.io/$name/"
    done
    chmod -R u+w "$dest"
    # Module zips do not keep file modes: make scripts executable again.
    find "$dest" -type f \( -name '*.sh' -o -name '*.py' \) -exec chmod +x {} +
  fi
}

# commit_upstream DIR VERSION: commits DIR's files as a root commit in the tree's repository (whose
# work tree may be elsewhere) and prints the commit id. Same content, same id.
commit_upstream() {
  local dir=$1 version=$2 index tree
  index=$(mktemp -u "$TREE/.git/upstream-index.XXXXXX")
  GIT_INDEX_FILE=$index git -C "$TREE" --work-tree="$dir" add --all --force .
  tree=$(GIT_INDEX_FILE=$index git -C "$TREE" write-tree)
  rm -f "$index"
  GIT_AUTHOR_NAME=$UPSTREAM_IDENT_NAME GIT_AUTHOR_EMAIL=$UPSTREAM_IDENT_EMAIL GIT_AUTHOR_DATE=$UPSTREAM_DATE \
    GIT_COMMITTER_NAME=$UPSTREAM_IDENT_NAME GIT_COMMITTER_EMAIL=$UPSTREAM_IDENT_EMAIL GIT_COMMITTER_DATE=$UPSTREAM_DATE \
    git -C "$TREE" commit-tree "$tree" -m "upstream: k8s.io/kubernetes $version" \
    -m "k8s.io/kubernetes@$version from the Go module proxy, with each staging module
k8s.io/<name>@$(staging_version_for "$version") in staging/src/k8s.io/<name>."
}

# init_tree_repo: an empty repository at $TREE with the settings the tooling relies on.
init_tree_repo() {
  mkdir -p "$TREE"
  git -C "$TREE" init -q -b series
  git -C "$TREE" config user.name "$SERIES_IDENT_NAME"
  git -C "$TREE" config user.email "$SERIES_IDENT_EMAIL"
  git -C "$TREE" config core.autocrlf false
  git -C "$TREE" config gc.auto 0
  # Keep every file byte for byte as the module proxy serves it: no end-of-line conversion from
  # upstream's .gitattributes (some test data has CRLF endings).
  mkdir -p "$TREE/.git/info"
  echo '* -text' >"$TREE/.git/info/attributes"
  # The cache's marker files of a tree kept in the cache (hack/cache.sh) are not the tree's.
  echo '/.prm-*' >>"$TREE/.git/info/exclude"
}

# apply_series DIR [git-am options]: applies every patch to the repository DIR, one `git am` each so
# a failure names the patch.
apply_series() {
  local dir=$1 p; shift
  for p in $(series_files); do
    info "applying $(basename "$p")"
    if ! git -C "$dir" am --quiet --whitespace=error-all --committer-date-is-author-date "$@" "$p"; then
      printf 'error: patch %s does not apply cleanly (see above).\n' "$(basename "$p")" >&2
      return 1
    fi
  done
}

# export_series DIR OUT: writes upstream..HEAD of repository DIR as patches into OUT (emptied first).
export_series() {
  local dir=$1 out=$2
  mkdir -p "$out"
  find "$out" -maxdepth 1 -name '*.patch' -delete
  if [ "$(git -C "$dir" rev-list --count upstream..HEAD)" -gt 0 ]; then
    git -C "$dir" "${GIT_NEUTRAL[@]}" format-patch --quiet "${FORMAT_PATCH_OPTS[@]}" -o "$out" upstream..HEAD
  fi
}

# upstream_script_env: the environment to run one of upstream's hack/ scripts in the tree with (the
# checks of hack/verify.d). kube::golang::setup_env would put Go's caches, and go install's binaries,
# under $TREE/_output/local/go: keep Go's caches where they are (so GOPROXY=off finds the modules),
# and the binaries in _output/tools/kube-gopath, so nothing is written into the tree.
upstream_script_env() {
  command -v go >/dev/null || die "go is not on PATH"
  GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)
  export GOCACHE GOMODCACHE KUBE_GOPATH=$ROOT/_output/tools/kube-gopath GOTOOLCHAIN=local
  mkdir -p "$KUBE_GOPATH"
  unset GOWORK GOBIN
}

# run_upstream_check SCRIPT [ARG...]: runs the tree's hack/SCRIPT in the tree (with
# upstream_script_env) and fails naming it.
run_upstream_check() {
  local script=$1 rc=0
  shift
  [ -f "$TREE/hack/$script" ] || die "the tree has no hack/$script"
  upstream_script_env
  (cd "$TREE" && nice -n 19 bash "hack/$script" "$@") || rc=$?
  [ $rc -eq 0 ] || die "upstream's hack/$script fails (exit $rc; findings above)"
}

# series_package_dirs: ./dir of every Go package the series adds or changes in $TREE, sorted.
series_package_dirs() {
  git -C "$TREE" diff --name-only --diff-filter=d upstream..HEAD -- '*.go' |
    while read -r f; do echo "./$(dirname "$f")"; done | LC_ALL=C sort -u
}

# ---------------------------------------------------------------------------------------------------
# Trees in the cache (hack/cache.sh). Two kinds: "upstream" (the assembled release, one "upstream"
# commit; key: the release and the code that assembles it) and "series" (the series applied on it;
# key: the upstream key, the pin and every patch). A tree entry is checked by git, not by a
# manifest: its HEAD is the one recorded when it was made, and nothing tracked differs from it.

tree_entry_valid() {
  local dir=$1
  [ -n "$(cat "$dir/.git/prm-entry-head" 2>/dev/null)" ] || return 1
  [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$(cat "$dir/.git/prm-entry-head")" ] || return 1
  [ -z "$(git -C "$dir" status --porcelain --untracked-files=normal 2>/dev/null)" ]
}

# upstream_key: the key of the assembled upstream tree: the release, the code that assembles it
# and, for the tooling's tests, the files of UPSTREAM_SRC.
upstream_key() {
  {
    echo "$KUBE_VERSION $STAGING_VERSION"
    declare -f assemble_upstream commit_upstream init_tree_repo module_dir staging_version_for
    if [ -n "$UPSTREAM_SRC" ]; then
      (cd "$UPSTREAM_SRC/$KUBE_VERSION" 2>/dev/null && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
    fi
  } | cache_key
}

# series_key: the key of the series applied on upstream.
series_key() { { upstream_key; series_fingerprint; declare -f apply_series; } | cache_key; }

build_upstream_entry() { # DIR
  local TREE=$1 commit
  log "assembling upstream $KUBE_VERSION (the Go module proxy: a few minutes cold)"
  init_tree_repo
  assemble_upstream "$KUBE_VERSION" "$TREE"
  commit=$(commit_upstream "$TREE" "$KUBE_VERSION")
  git -C "$TREE" update-ref refs/heads/series "$commit"
  git -C "$TREE" tag -f upstream "$commit" >/dev/null
  git -C "$TREE" reset --quiet "$commit"
  git -C "$TREE" rev-parse HEAD >"$TREE/.git/prm-entry-head"
}

build_series_entry() { # DIR
  local dir=$1 up
  up=$(upstream_entry)
  log "applying $(series_files | wc -l) patches onto upstream $KUBE_VERSION"
  cp -a "$up/." "$dir/"
  rm -f "$dir"/.prm-*
  apply_series "$dir" || return 1
  git -C "$dir" rev-parse HEAD >"$dir/.git/prm-entry-head"
}

# upstream_entry / series_entry: the cached tree's path, made when missing.
upstream_entry() { cached upstream "$(upstream_key)" "upstream tree $KUBE_VERSION" build_upstream_entry tree_entry_valid; }
series_entry() { cached series "$(series_key)" "series tree ($(series_files | wc -l) patches on $KUBE_VERSION)" build_series_entry tree_entry_valid; }

# copy_tree ENTRY DEST: a working copy of a cached tree at DEST (which must not exist), with the
# same files, commits and file times.
copy_tree() {
  cp -a "$1" "$2.tmp.$$"
  rm -f "$2.tmp.$$"/.prm-* "$2.tmp.$$/.git/prm-entry-head"
  mv -T "$2.tmp.$$" "$2"
}

# test_tree: where to run the tree's tests: the cached series tree, when $TREE is exactly that
# tree (no local commits or edits), so that every checkout runs them at one path with the same file
# times and Go's test cache serves results whose inputs did not change; $TREE otherwise.
test_tree() {
  local dir key
  key=$(series_key)
  dir=$(cache_path series "$key")
  if [ "$(stamp_value fingerprint)" = "$(series_fingerprint)" ] && ! tree_has_local_work &&
    [ "${PRM_CACHE_OFF:-}" != 1 ] && [ -f "$dir/.prm-complete" ] &&
    [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$(tgit rev-parse HEAD)" ] && tree_entry_valid "$dir"; then
    printf '%s\n' "$dir"
  else
    printf '%s\n' "$TREE"
  fi
}

# series_test_dirs: ./DIR of every package whose upstream tests make test runs: those with Go files
# the series adds or changes, plus hack/test-packages.txt (packages the series affects without
# editing them); test/e2e_node is a suite that starts services, run by scripts/e2e-node.sh instead.
series_test_dirs() {
  {
    tgit diff --name-only --diff-filter=AMR upstream..HEAD -- '*.go' | xargs -r -n1 dirname
    sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$ROOT/hack/test-packages.txt"
  } | LC_ALL=C sort -u | while read -r d; do
    # A directory the series removed entirely, or one without Go files, has nothing to test.
    [ "$d" != test/e2e_node ] || continue
    compgen -G "$TREE/$d/*.go" >/dev/null && echo "./$d"
  done
}

# series_fuzz_targets: "./DIR FuzzName" for each fuzz target in the Go test files the series adds
# or changes.
series_fuzz_targets() {
  tgit diff --name-only --diff-filter=AMR upstream..HEAD -- '*_test.go' |
    while read -r f; do sed -n "s|^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*|./$(dirname "$f") \1|p" "$TREE/$f"; done
}
