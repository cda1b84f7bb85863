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

# ---------------------------------------------------------------------------------------
# A sandbox and a Sluice of a script's own (the scripts under sluice-bench/scripts/): the benchmarks
# jar, a work directory with its cleanup, the sandbox, Sluice's configuration and Sluice itself.
# bench_begin's cleanup stops Sluice and, when BENCH_STOP_SANDBOX is 1, the sandbox.

BENCH_STOP_SANDBOX=0
BENCH_SLUICE_PID=""
BENCH_SANDBOX_DIR=""
BENCH_WORK=""
BENCH_RESULTS=""
readonly BENCH_SLUICE_STARTUP_TIMEOUT_S=60
BENCH_JAR="$SLUICE_ROOT/sluice-bench/target/benchmarks.jar"

# build_bench_if_needed: builds sluice-bench/target/benchmarks.jar when it is missing or older
# than a main source or a pom of the modules it is built from.
build_bench_if_needed() {
  local newer=""
  if [[ -f "$BENCH_JAR" ]]; then
    newer="$(find "$SLUICE_ROOT/pom.xml" "$SLUICE_ROOT"/{sluice-protocol,sluice-routing,sluice-bench}/{pom.xml,src/main} \
      -type f -newer "$BENCH_JAR" -print -quit 2>/dev/null || true)"
    [[ -n "$newer" ]] || return 0
  fi
  info "Building sluice-bench/target/benchmarks.jar"
  (cd "$SLUICE_ROOT" && mvn -B -q package -DskipTests -pl sluice-bench -am) || die "the build failed"
}

# bench_begin NAME [RESULTS_DIR]: a work directory of the script's own (BENCH_WORK) and, at exit,
# the cleanup: Sluice stopped, the sandbox stopped if the script started it, the work directory
# removed when all went well (kept, and named, when not). A script that writes its results to a
# RESULTS_DIR of its own gets Sluice's configuration and log there too, and its work directory is
# always removed: what is worth keeping is in RESULTS_DIR. A script may define bench_before_stop,
# run first, and bench_after_sluice_stop, run once Sluice has stopped and before the sandbox does.
bench_begin() {
  BENCH_WORK="$(mktemp -d -t "sluice-$1.XXXXXX")"
  BENCH_RESULTS="${2:-}"
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if declare -F bench_before_stop >/dev/null; then
    bench_before_stop || true
  fi
  bench_sluice_stop
  if [[ -n "$BENCH_RESULTS" && -n "$BENCH_WORK" ]]; then
    cp "$BENCH_WORK"/sluice.{yaml,log} "$BENCH_RESULTS/" 2>/dev/null || true
  fi
  if declare -F bench_after_sluice_stop >/dev/null; then
    bench_after_sluice_stop || true
  fi
  if ((BENCH_STOP_SANDBOX)) && [[ -n "$BENCH_SANDBOX_DIR" ]]; then
    bench_sandbox_stop "$BENCH_SANDBOX_DIR"
  fi
  if [[ -n "$BENCH_WORK" && -d "$BENCH_WORK" ]]; then
    if ((status == 0)) || [[ -n "$BENCH_RESULTS" ]]; then
      rm -rf "$BENCH_WORK"
    else
      note "Sluice's log, its configuration and the run's outputs kept in $BENCH_WORK"
    fi
  fi
  exit "$status"
}

# bench_sandbox_start DIR BASE_PORT REPLICAS: starts the sandbox in DIR, or uses it when it is
# running already (then it is left running at the end).
bench_sandbox_start() {
  local dir="$1" base_port="$2" replicas="$3" status=""
  BENCH_SANDBOX_DIR="$dir"
  if [[ -f "$dir/sandbox.conf" ]]; then
    status="$("$SLUICE_ROOT/scripts/sandbox.sh" status --dir "$dir" 2>/dev/null || true)"
  fi
  if [[ "$status" == *running* ]]; then
    info "Using the running sandbox in $dir"
  else
    BENCH_STOP_SANDBOX=1
  fi
  "$SLUICE_ROOT/scripts/sandbox.sh" start --replicas "$replicas" --base-port "$base_port" --dir "$dir" >&2
}

# bench_sysbench_prepare TEST ARGS...: sysbench's tables made again from nothing by TEST's prepare
# (ARGS: its connection and table options, for the primary), then the sandbox's replicas caught up
# with them; sysbench's output goes to BENCH_WORK/prepare.log.
bench_sysbench_prepare() {
  local test="$1"
  shift
  sysbench "$test" "$@" cleanup >"$BENCH_WORK/prepare.log" 2>&1 || true
  sysbench "$test" "$@" prepare >>"$BENCH_WORK/prepare.log" 2>&1 ||
    { tail -n 20 "$BENCH_WORK/prepare.log" >&2; die "sysbench prepare failed"; }
  "$SLUICE_ROOT/scripts/sandbox.sh" sync --dir "$BENCH_SANDBOX_DIR" >&2 || die "the replicas did not catch up"
}

bench_sandbox_stop() {
  "$SLUICE_ROOT/scripts/sandbox.sh" stop --dir "$1" >&2 || warn "could not stop the sandbox in $1"
}

# bench_sluice_start JAR CONFIG LOG PORT...: runs Sluice from JAR (empty: the project's jar, built
# when stale) with CONFIG, its output in LOG, and waits until it listens on every PORT.
bench_sluice_start() {
  local jar="$1" config="$2" log="$3" port
  shift 3
  if [[ -z "$jar" ]]; then
    build_if_needed
    jar="$SLUICE_JAR"
  fi
  [[ -f "$jar" ]] || die "no Sluice jar at $jar"
  # shellcheck disable=SC2086 # SLUICE_JAVA_OPTS is a list of JVM options
  java ${SLUICE_JAVA_OPTS:-} -jar "$jar" run --config "$config" >"$log" 2>&1 &
  BENCH_SLUICE_PID=$!
  for port in "$@"; do
    wait_for_port "$port" "$BENCH_SLUICE_STARTUP_TIMEOUT_S" ||
      { tail -n 20 "$log" >&2; die "Sluice did not listen on $port (log: $log)"; }
  done
}

# bench_cluster_yaml BASE_PORT REPLICAS [NODE_KEYS]: the monitor: and nodes: sections of a Sluice
# configuration for the sandbox on BASE_PORT: primary there, ro1..roN on the ports after it, with the
# sandbox's monitor account. NODE_KEYS (e.g. "tls: off") is added to every node.
bench_cluster_yaml() {
  local base=$1 replicas=$2 keys=${3:+, $3} k
  echo "monitor: {user: monitor, password: monitor, interval: 1s}"
  echo "nodes:"
  echo "  - {name: primary, address: 127.0.0.1:$base, role: primary$keys}"
  for ((k = 1; k <= replicas; k++)); do
    echo "  - {name: ro$k, address: 127.0.0.1:$((base + k)), role: replica$keys}"
  done
}

# bench_admin_yaml PORT: the admin: section, on loopback without a token.
bench_admin_yaml() {
  echo "admin: {listen: 127.0.0.1:$1, token: \"\"}"
}

bench_sluice_stop() {
  if [[ -n "$BENCH_SLUICE_PID" ]] && kill -0 "$BENCH_SLUICE_PID" 2>/dev/null; then
    kill -TERM "$BENCH_SLUICE_PID" 2>/dev/null || true
    wait "$BENCH_SLUICE_PID" 2>/dev/null || true # its exit status after SIGTERM is of no interest
  fi
  BENCH_SLUICE_PID=""
}

# replication_intact DIR: checks every replica of the sandbox in DIR over its socket: IO and SQL
# threads running, and its applied GTID position equal to the primary's binlog position within
# CONVERGE_TIMEOUT_S. Prints one line per replica; returns 1 when any is not intact.
replication_intact() {
  local dir="$1" replicas k socket primary_pos io sqlt pos waited ok=0
  local -r converge_timeout_s=60
  replicas="$(sed -n 's/^replicas=//p' "$dir/sandbox.conf")"
  primary_pos="$(sandbox_root_sql "$dir" 0 'SELECT @@gtid_binlog_pos')" || { echo "primary: no answer"; return 1; }
  for ((k = 1; k <= replicas; k++)); do
    io="$(sandbox_slave_field "$dir" "$k" Slave_IO_Running)"
    sqlt="$(sandbox_slave_field "$dir" "$k" Slave_SQL_Running)"
    waited=not-running
    if [[ "$io" == Yes && "$sqlt" == Yes ]]; then
      waited="$(sandbox_root_sql "$dir" "$k" "SELECT MASTER_GTID_WAIT('$primary_pos', $converge_timeout_s)" || echo error)"
    fi
    pos="$(sandbox_root_sql "$dir" "$k" 'SELECT @@gtid_slave_pos' || echo '?')"
    if [[ "$io" == Yes && "$sqlt" == Yes && "$waited" == 0 ]]; then
      echo "ro$k: IO=$io SQL=$sqlt gtid_slave_pos=$pos = primary $primary_pos: intact"
    else
      echo "ro$k: IO=$io SQL=$sqlt gtid_slave_pos=$pos, primary $primary_pos: BROKEN ($(sandbox_slave_field "$dir" "$k" Last_SQL_Error)$(sandbox_slave_field "$dir" "$k" Last_IO_Error))"
      ok=1
    fi
  done
  return "$ok"
}

# sandbox_root_sql DIR K SQL: runs SQL as root on node K of the sandbox in DIR (over its socket,
# through the my.cnf the sandbox wrote); tab-separated, no headers.
sandbox_root_sql() {
  mariadb --defaults-file="$1/node$2/my.cnf" --batch --skip-column-names --connect-timeout=5 -e "$3"
}

# sandbox_slave_field DIR K FIELD: one field of SHOW SLAVE STATUS on node K.
sandbox_slave_field() {
  mariadb --defaults-file="$1/node$2/my.cnf" --connect-timeout=5 --vertical -e 'SHOW SLAVE STATUS' |
    awk -v field="$3: " '{ sub(/^ +/, "") } index($0, field) == 1 { print substr($0, length(field) + 1); exit }'
}
