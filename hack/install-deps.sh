#!/usr/bin/env bash
# Installs what the project needs and a fresh machine may lack: Debian packages (only when a command
# is missing). Go itself must be on PATH (go.mod names the version).
#
# Usage: hack/install-deps.sh
set -o errexit -o nounset -o pipefail
case ${1:-} in -h | --help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

command -v go >/dev/null || { echo "error: Go is not on PATH; install Go 1.26 first" >&2; exit 1; }

# command -> Debian package
declare -A need=(
  [git]=git
  [make]=make
  [gcc]=gcc
)
missing=()
for cmd in "${!need[@]}"; do
  command -v "$cmd" >/dev/null || missing+=("${need[$cmd]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
