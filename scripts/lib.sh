# shellcheck shell=bash
# Helpers shared by ./sluice and the scripts under scripts/ and sluice-bench/scripts/.
# Source it; it defines functions and SLUICE_ROOT, and runs nothing else.

if [[ -n "${SLUICE_LIB_LOADED:-}" ]]; then
  return 0
fi
SLUICE_LIB_LOADED=1

SLUICE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SLUICE_JAR="$SLUICE_ROOT/sluice-server/target/sluice.jar"

# Where Debian puts daemons; not on a non-root user's PATH.
SBIN_DIRS=(/usr/sbin /sbin /usr/local/sbin)

info() { printf '==> %s\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# find_bin NAME: prints the path of an executable, looking on PATH and in the sbin
# directories; returns 1 when there is none.
find_bin() {
  local name="$1" dir
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  for dir in "${SBIN_DIRS[@]}"; do
    if [[ -x "$dir/$name" ]]; then
      printf '%s\n' "$dir/$name"
      return 0
    fi
  done
  return 1
}

# require_bin NAME: like find_bin, but dies with a hint naming the install script.
require_bin() {
  find_bin "$1" || die "'$1' is not installed; run: $SLUICE_ROOT/scripts/install-deps.sh (or ./sluice demo, which installs what is missing)"
}

# port_open PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# wait_for_port PORT SECONDS: waits until 127.0.0.1:PORT accepts connections.
wait_for_port() {
  local port="$1" seconds="$2" deadline
  deadline=$((SECONDS + seconds))
  until port_open "$port"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# The jar is stale when a main source or a pom of the modules it is built from is newer.
jar_is_stale() {
  [[ -f "$SLUICE_JAR" ]] || return 0
  local input newer
  local -a inputs=()
  for input in pom.xml {sluice-protocol,sluice-routing,sluice-server}/{pom.xml,src/main}; do
    [[ ! -e "$SLUICE_ROOT/$input" ]] || inputs+=("$SLUICE_ROOT/$input")
  done
  ((${#inputs[@]} > 0)) || return 1
  newer="$(find "${inputs[@]}" -type f -newer "$SLUICE_JAR" -print -quit)"
  [[ -n "$newer" ]]
}

# build_if_needed: builds the runnable jar when it is missing or older than its sources.
build_if_needed() {
  if ! jar_is_stale; then
    return 0
  fi
  require_bin mvn >/dev/null
  require_bin java >/dev/null
  info "Building Sluice (mvn -B -q -DskipTests -pl sluice-server -am package)"
  (cd "$SLUICE_ROOT" && mvn -B -q -DskipTests -pl sluice-server -am package) ||
    die "the build failed (see the Maven output above); fix it, or run 'mvn -B package' for the full log"
  [[ -f "$SLUICE_JAR" ]] || die "the build finished but $SLUICE_JAR is missing; check the shade plugin in sluice-server/pom.xml"
}
