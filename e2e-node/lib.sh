# shellcheck shell=bash
# Common settings and helpers of the e2e-node scripts. Source it; do not run it.
#
# It builds on hack/lib.sh (ROOT, TREE and BIN, log/info/warn/die, apt_install, project_tool).
# Paths can be overridden from the environment:
#   TREE       the assembled, patched upstream tree (default: $ROOT/_output/kubernetes)
#   BIN        the patched binaries                 (default: $ROOT/_output/bin)
#   E2E_OUT    images and reports of this harness  (default: $ROOT/_output/e2e)

set -o errexit -o nounset -o pipefail
# Note for pipes: no `| grep -q` or `| head` after a writer; under pipefail the writer can fail
# with SIGPIPE when the reader exits early. Read everything (sed -n 1p) or use a variable.

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../hack/lib.sh
. "$E2E_DIR/../hack/lib.sh"
E2E_OUT=${E2E_OUT:-$ROOT/_output/e2e}

# Fallbacks when no tree is there to read the names from (test/utils/image/manifest.go of v1.37.2).
DEFAULT_PAUSE_IMAGE=registry.k8s.io/pause:3.10.2
DEFAULT_BUSYBOX_IMAGE=registry.k8s.io/e2e-test-images/busybox:1.37.0-2

need_root() { [ "$(id -u)" = 0 ] || die "$(basename "$0") must run as root"; }

# abs_dir DIR: DIR as an absolute path (it need not exist).
abs_dir() {
  case $1 in
    /*) printf '%s\n' "${1%/}" ;;
    *) printf '%s/%s\n' "$(pwd)" "${1%/}" ;;
  esac
}

# manifest_image ID: the image reference test/utils/image/manifest.go of the tree gives the image ID
# (e.g. Pause, BusyBox), with the default registries; empty when the tree or the entry is missing.
manifest_image() {
  local manifest=$TREE/test/utils/image/manifest.go line field registry image version
  [ -f "$manifest" ] || return 0
  # configs[Pause] = Config{list.GcRegistry, "pause", "3.10.2"}
  line=$(grep -E "^[[:space:]]*configs\[$1\] = Config\{list\.[A-Za-z0-9]+, \"[^\"]+\", \"[^\"]+\"\}" "$manifest" | sed -n 1p) || return 0
  field=$(sed -E 's/.*Config\{list\.([A-Za-z0-9]+),.*/\1/' <<<"$line")
  image=$(sed -E 's/.*Config\{list\.[A-Za-z0-9]+, "([^"]+)", "([^"]+)"\}.*/\1/' <<<"$line")
  version=$(sed -E 's/.*Config\{list\.[A-Za-z0-9]+, "([^"]+)", "([^"]+)"\}.*/\2/' <<<"$line")
  # initRegistry = RegistryList{ ... GcRegistry: "registry.k8s.io", ... }
  registry=$(sed -n '/initRegistry = RegistryList{/,/^[[:space:]]*}/p' "$manifest" |
    sed -nE "s/^[[:space:]]*$field:[[:space:]]*\"([^\"]+)\",.*/\1/p" | sed -n 1p)
  [ -n "$registry" ] || return 0
  printf '%s/%s:%s\n' "$registry" "$image" "$version"
}

# pause_image / busybox_image: the names the e2e framework uses (env PAUSE_IMAGE / BUSYBOX_IMAGE win).
pause_image() {
  local img=${PAUSE_IMAGE:-$(manifest_image Pause)}
  printf '%s\n' "${img:-$DEFAULT_PAUSE_IMAGE}"
}
busybox_image() {
  local img=${BUSYBOX_IMAGE:-$(manifest_image BusyBox)}
  printf '%s\n' "${img:-$DEFAULT_BUSYBOX_IMAGE}"
}

# mounts_under DIR: the mount points at or below DIR, deepest first.
mounts_under() {
  local dir=$1
  # Field 5 of mountinfo is the mount point, with space, tab, newline and backslash octal-escaped.
  awk '{print $5}' /proc/self/mountinfo | while IFS= read -r mp; do
    mp=$(printf '%b' "${mp//\\/\\0}")
    case $mp in "$dir" | "$dir"/*) printf '%s\n' "$mp" ;; esac
  done | awk '{print length($0) "\t" $0}' | sort -rn | cut -f2-
}

# unmount_under DIR: unmounts everything at or below DIR (lazily when a plain umount fails).
unmount_under() {
  local mp
  while IFS= read -r mp; do
    [ -n "$mp" ] || continue
    umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || warn "cannot unmount $mp"
    info "unmounted $mp"
  done < <(mounts_under "$1")
}
