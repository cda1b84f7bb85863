#!/usr/bin/env bash
# Installs the system packages Sluice's commands need, and only those that are missing.
#
#   scripts/install-deps.sh [mariadb] [sysbench] [haproxy] [chromium] [build] [mysqltest] [clients] [etcd]
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
  etcd       etcd (etcd-server), the configuration store of cluster mode and its tests, and
             openssl, which makes the certificates of scripts/etcd.sh --tls
  chromium   headless Chromium (dashboard tests)
  build      Java 17 JDK and Maven
  mysqltest  MariaDB's own test suite (mariadb-test), for sluice-bench/scripts/conformance-mysqltest.sh
  clients    the client libraries of sluice-bench/scripts/conformance-clients.sh: PHP mysqli,
             PyMySQL, the Go driver (Debian packages) and node mysql2 (npm, pinned by
             sluice-bench/conformance/clients/node/package-lock.json)
Default: mariadb sysbench.
EOF
}

# commands_for WHAT: the executables whose presence means WHAT is installed.
commands_for() {
  case "$1" in
    mariadb) echo "mariadbd mariadb-install-db mariadb mariadb-admin" ;;
    sysbench) echo "sysbench" ;;
    haproxy) echo "haproxy" ;;
    etcd) echo "etcd openssl" ;;
    chromium) echo "chromium" ;;
    build) echo "java javac mvn" ;;
    mysqltest) echo "mariadb-test" ;;
    clients) echo "php go node npm" ;;
    *) return 1 ;;
  esac
}

readonly GO_DRIVER_DIR=/usr/share/gocode/src/github.com/go-sql-driver/mysql
readonly NODE_CLIENT_DIR="$SLUICE_ROOT/sluice-bench/conformance/clients/node"

# libraries_present WHAT: what WHAT needs besides executables.
libraries_present() {
  case "$1" in
    mysqltest) [[ -d /usr/share/mysql/mysql-test/main ]] ;;
    clients)
      php -r 'exit(extension_loaded("mysqli") ? 0 : 1);' 2>/dev/null &&
        /usr/bin/python3 -c 'import pymysql' 2>/dev/null && [[ -d "$GO_DRIVER_DIR" ]]
      ;;
    *) return 0 ;;
  esac
}

# node mysql2 comes from npm into the project's own directory, exactly as its lock file says;
# this needs no root, so it runs whoever runs the script.
install_node_client() {
  [[ ! -d "$NODE_CLIENT_DIR/node_modules/mysql2" ]] || return 0
  info "Installing node mysql2 into $NODE_CLIENT_DIR (npm ci)"
  (cd "$NODE_CLIENT_DIR" && npm ci --no-audit --no-fund) || die "npm ci failed in $NODE_CLIENT_DIR"
}

# packages_for WHAT: the Debian packages that provide WHAT.
packages_for() {
  case "$1" in
    mariadb) echo "mariadb-server-core mariadb-client" ;;
    sysbench) echo "sysbench" ;;
    haproxy) echo "haproxy" ;;
    # etcd-server's package starts a system service on the default ports 2379/2380; Sluice's own
    # scripts/etcd.sh never uses it, its ports or its data directory.
    etcd) echo "etcd-server openssl" ;;
    chromium) echo "chromium" ;;
    build) echo "openjdk-17-jdk-headless maven" ;;
    mysqltest) echo "mariadb-test" ;;
    clients)
      # A machine may already have Node.js from elsewhere (NodeSource's nodejs bundles npm and
      # conflicts with Debian's npm): Debian's are asked for only when node or npm is missing.
      local node_packages="nodejs npm"
      ! find_bin node >/dev/null || ! find_bin npm >/dev/null || node_packages=""
      echo "php-cli php-mysql python3-pymysql golang-go golang-github-go-sql-driver-mysql-dev $node_packages"
      ;;
    *) return 1 ;;
  esac
}

is_installed() {
  local cmd
  for cmd in $(commands_for "$1"); do
    find_bin "$cmd" >/dev/null || return 1
  done
  libraries_present "$1"
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
    [[ " ${wanted[*]} " != *" clients "* ]] || install_node_client
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
  [[ " ${wanted[*]} " != *" clients "* ]] || install_node_client
}

main "$@"
