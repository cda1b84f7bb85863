#!/usr/bin/env bash
# Installs the system packages Sluice's commands need, and only those that are missing.
#
#   scripts/install-deps.sh [mariadb] [sysbench] [haproxy] [chromium] [build]
#
# With no argument: mariadb and sysbench. As root it runs apt-get (running
# `apt-get update` once first when a package is unknown or the install fails);
# otherwise it prints the exact command to run and exits 1.
#
# MariaDB comes from `mariadb-server-core` + `mariadb-client`: the server binaries
# (mariadbd, mariadb-install-db) without the `mariadb-server` package's system service,
# so installing never starts a second server on port 3306 that would compete with the
# sandbox. The sandbox never uses a system service, its port, socket or data directory.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF'
Usage: scripts/install-deps.sh [WHAT...]

Installs what is missing among:
  mariadb    MariaDB server and client binaries (mariadb-server-core, mariadb-client)
  sysbench   sysbench (benchmarks and the sysbench client tests)
  haproxy    HAProxy (the plain TCP hop of the benchmark)
  chromium   headless Chromium (dashboard tests)
  build      Java 17 JDK and Maven
Default: mariadb sysbench.
EOF
}

# commands_for WHAT: the executables whose presence means WHAT is installed.
commands_for() {
  case "$1" in
    mariadb) echo "mariadbd mariadb-install-db mariadb mariadb-admin" ;;
    sysbench) echo "sysbench" ;;
    haproxy) echo "haproxy" ;;
    chromium) echo "chromium" ;;
    build) echo "java javac mvn" ;;
    *) return 1 ;;
  esac
}

# packages_for WHAT: the Debian packages that provide WHAT.
packages_for() {
  case "$1" in
    mariadb) echo "mariadb-server-core mariadb-client" ;;
    sysbench) echo "sysbench" ;;
    haproxy) echo "haproxy" ;;
    chromium) echo "chromium" ;;
    build) echo "openjdk-17-jdk-headless maven" ;;
    *) return 1 ;;
  esac
}

is_installed() {
  local cmd
  for cmd in $(commands_for "$1"); do
    find_bin "$cmd" >/dev/null || return 1
  done
}

# all_known PKG...: true when apt knows an installation candidate for every package.
all_known() {
  local pkg candidate
  for pkg in "$@"; do
    candidate="$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    [[ -n "$candidate" && "$candidate" != "(none)" ]] || return 1
  done
}

apt_install() {
  local updated=0
  export DEBIAN_FRONTEND=noninteractive
  if ! all_known "$@"; then
    info "Refreshing the package lists (apt-get update)"
    apt-get update -q || die "apt-get update failed; check the network and /etc/apt/sources.list*"
    updated=1
  fi
  info "Installing: $*"
  if apt-get install -y -q "$@"; then
    return 0
  fi
  ((updated == 0)) || die "apt-get install -y $* failed (see above)"
  # Stale package lists give 404s for files that have moved on: refresh once and retry.
  info "Install failed; refreshing the package lists and retrying"
  apt-get update -q || die "apt-get update failed; check the network and /etc/apt/sources.list*"
  apt-get install -y -q "$@" || die "apt-get install -y $* failed (see above)"
}

main() {
  local what
  local -a wanted=() missing=() packages=()
  if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    usage
    return 0
  fi
  if (($# == 0)); then
    wanted=(mariadb sysbench)
  else
    wanted=("$@")
  fi

  for what in "${wanted[@]}"; do
    commands_for "$what" >/dev/null || { usage >&2; die "unknown dependency '$what'"; }
    if ! is_installed "$what"; then
      missing+=("$what")
      read -r -a pkgs <<<"$(packages_for "$what")"
      packages+=("${pkgs[@]}")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi

  if ! is_root; then
    printf 'Missing: %s\n' "${missing[*]}" >&2
    printf 'Install them with:\n    sudo apt-get install -y %s\n' "${packages[*]}" >&2
    exit 1
  fi

  apt_install "${packages[@]}"
  for what in "${missing[@]}"; do
    is_installed "$what" ||
      die "installed $(packages_for "$what") but still missing one of: $(commands_for "$what")"
  done
  info "Installed: ${missing[*]}"
}

main "$@"
