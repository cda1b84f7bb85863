#!/usr/bin/env bash
# sysbench through three paths to the same MariaDB server, interleaved in one run:
#   direct      sysbench -> MariaDB
#   TCP hop     sysbench -> HAProxy (mode tcp) -> MariaDB      (the cost of any proxy hop)
#   Sluice      sysbench -> Sluice -> MariaDB
# and writes the figures and the ratios Sluice / TCP hop to docs/PERFORMANCE.md.
#
# Before/after a change: --baseline-ref REV (a jar built from that git revision in a temporary
# git worktree, removed afterwards) or --baseline-jar JAR adds a fourth path, a second Sluice with
# the same configuration on its own ports (P+5 read-write, P+6 primary reads, P+7 admin), e.g.
#   Sluice (before)  sysbench -> Sluice built from REV -> MariaDB
# interleaved and rotated with the others, and the ratio Sluice / Sluice (before) per round and
# its median. --section-title gives such a run its own section of the document, e.g.
#   sluice-bench/scripts/sysbench-compare.sh --baseline-ref origin/main \
#     --section-title '## Session core redesign: before/after'
# --consistency LEVEL sets the consistency of every Sluice endpoint (both instances).
# --cluster measures cluster mode's cost: Sluice runs with a cluster: section against a local etcd
# (scripts/etcd.sh), and the baseline is the same jar without it, labelled "without cluster".
# --baseline-without-digests measures query digests alone: the baseline is the same jar and
# configuration with query-digests: false, labelled "without digests".
#
# Tests and where they go:
#   oltp_read_only  (with --skip-trx=on, so reads are autocommit and may go to replicas):
#       direct -> ro1, HAProxy :6402 -> ro1, Sluice :6403 (read-write endpoint over the primary
#       and 2 replicas, primary read weight 0, so reads spread over ro1 and ro2)
#   every other test (oltp_point_select, oltp_read_write, ...):
#       direct -> primary, HAProxy :6401 -> primary, Sluice :6404 (read-write endpoint whose
#       reads go to the primary)
#
# The sandbox: .sandbox/demo when ./sluice demo created one (ports 3311..), else its own
# .sandbox/bench (1 primary + 2 replicas, ports 3331-3333); --sandbox-dir picks another.
# Benchmarks are not tests: run it by hand on a quiet machine.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"

readonly DEFAULT_SECTION_TITLE="## sysbench: Sluice vs TCP hop vs direct"
readonly BENCH_DIR="$SLUICE_ROOT/.sandbox/bench"
readonly BENCH_BASE_PORT=3331
readonly DEMO_DIR="$SLUICE_ROOT/.sandbox/demo"
# Listening ports, consecutive from --proxy-base-port (default 6401): HAProxy -> primary,
# HAProxy -> ro1, Sluice read-write endpoint, Sluice primary-reads endpoint, Sluice admin; with a
# baseline, then its read-write endpoint, its primary-reads endpoint and its admin.
readonly DEFAULT_PROXY_BASE_PORT=6401
readonly TABLES=4
readonly TABLE_SIZE=10000
readonly STARTUP_TIMEOUT_S=60

TIME_S=20
THREADS=8
RATE=0
ROUNDS=3
TESTS="oltp_point_select,oltp_read_only"
WARMUP_S=5
SKIP_SLUICE=0
SANDBOX_DIR=""
PRIMARY_ENDPOINT_STYLE=weights
# Sluice's links to the nodes: off by default, like the TCP hop's (HAProxy in tcp mode passes the
# client's plaintext through), so that both paths do the same work. The sandbox's nodes offer TLS,
# and Sluice's own default (preferred) would encrypt every backend round trip.
BACKEND_TLS=off
DOC="$SLUICE_ROOT/docs/PERFORMANCE.md"
PROXY_BASE_PORT=$DEFAULT_PROXY_BASE_PORT
HAPROXY_PRIMARY_PORT=""
HAPROXY_REPLICA_PORT=""
SLUICE_RW_PORT=""
SLUICE_PRIMARY_PORT=""
SLUICE_ADMIN_PORT=""
SECTION_TITLE="$DEFAULT_SECTION_TITLE"
# Endpoints' consistency level; empty: the endpoint's default (none written in the configuration).
CONSISTENCY=""
# The baseline Sluice ("before"): a jar given, or one built from a git revision; empty: none.
BASELINE_JAR=""
BASELINE_REF=""
BASELINE_COMMIT=""
BASELINE_LABEL=before
BASELINE=0
BASELINE_RW_PORT=""
BASELINE_PRIMARY_PORT=""
BASELINE_ADMIN_PORT=""
# Cluster mode for the measured Sluice (--cluster): a local etcd on ETCD_PORT, its data under WORK.
CLUSTER=0
readonly ETCD_PORT=23890
readonly CLUSTER_PREFIX=/sluice/bench
ETCD_DIR=""
# --baseline-without-digests: the baseline is the same jar with query-digests: false.
DIGESTS_OFF_BASELINE=0

usage() {
  cat <<EOF
Usage: sluice-bench/scripts/sysbench-compare.sh [OPTIONS]

  --time S            seconds per sysbench run (default $TIME_S)
  --threads N         sysbench threads (default $THREADS)
  --rate R            a fixed load: R transactions a second in all (sysbench --rate), the same on
                      every path (default 0: as fast as each path goes). Each proxy then does the
                      same work at the same pace, so its CPU per transaction tells two builds apart
                      more finely than tps, which a busy machine moves by several percent
  --rounds N          interleaved rounds; the order of the paths rotates each round (default $ROUNDS)
  --tests A,B         sysbench tests (default $TESTS)
  --warmup S          seconds of unrecorded warm-up per path before round 1 (default $WARMUP_S; 0: none)
  --skip-sluice       measure direct and HAProxy only
  --sandbox-dir D     use (and start if needed) the sandbox in D
  --sluice-primary-endpoint weights|single-node
                      how the Sluice endpoint on P+3 (6404) sends reads to the primary:
                      weights      nodes [primary, ro1], weights {primary: 100, ro1: 0} (default;
                                   valid for any read-write endpoint)
                      single-node  nodes [primary] (only if the configuration accepts a
                                   read-write endpoint without a replica)
  --proxy-base-port P first of the 5 ports (8 with a baseline) the proxies listen on (default $DEFAULT_PROXY_BASE_PORT):
                      P HAProxy -> primary, P+1 HAProxy -> ro1, P+2 Sluice read-write endpoint,
                      P+3 Sluice endpoint reading from the primary, P+4 Sluice admin API; the baseline P+5..P+7
  --backend-tls T     Sluice's node links: off (default, like the TCP hop) | preferred | required
  --consistency L     consistency of every Sluice endpoint: eventual | session | global
                      (default: none set, i.e. the endpoint's default)
  --doc FILE          where to write the results (default docs/PERFORMANCE.md)
  --section-title T   the section of FILE to write (replaced if present, else appended); must be
                      a "## " heading (default '$DEFAULT_SECTION_TITLE')

Before/after (Sluice against an earlier build of itself, side by side in the same run):
  --baseline-ref REV  build the baseline from git revision REV (in a temporary git worktree,
                      mvn -B -q -DskipTests -pl sluice-server -am package; removed afterwards)
  --baseline-jar JAR  or use JAR (a sluice.jar built from an earlier commit) as the baseline
  --baseline-label T  its name in the report (default $BASELINE_LABEL): path "Sluice (T) → ...",
                      ratio "Sluice / Sluice (T)"
                      The baseline runs the same configuration on P+5 (read-write), P+6 (reads on
                      the primary) and P+7 (admin), is one more path of every test, interleaved
                      and rotated like the others, and the ratio table gains
                      Sluice / Sluice (T) by round and its median.
  e.g. sluice-bench/scripts/sysbench-compare.sh --baseline-ref HEAD~1 \\
         --section-title '## My change: before/after'

Cluster mode's cost:
  --cluster           Sluice runs in cluster mode (cluster: {etcd: [http://127.0.0.1:$ETCD_PORT], name: bench,
                      prefix: $CLUSTER_PREFIX}, a local etcd started by scripts/etcd.sh in the run's work
                      directory); the baseline is the same jar without cluster: (label "without cluster")
                      unless --baseline-* say otherwise

Query digests' cost:
  --baseline-without-digests
                      the baseline is the same jar and configuration with query-digests: false
                      (label "without digests"): Sluice / Sluice (without digests) is what counting
                      every statement by digest costs

Environment: SLUICE_JAVA_OPTS for Sluice's JVM.
EOF
}

parse_options() {
  while (($#)); do
    case "$1" in
      --time) TIME_S="${2:?}"; shift 2 ;;
      --threads) THREADS="${2:?}"; shift 2 ;;
      --rate) RATE="${2:?}"; shift 2 ;;
      --rounds) ROUNDS="${2:?}"; shift 2 ;;
      --tests) TESTS="${2:?}"; shift 2 ;;
      --warmup) WARMUP_S="${2:?}"; shift 2 ;;
      --skip-sluice) SKIP_SLUICE=1; shift ;;
      --sandbox-dir) SANDBOX_DIR="${2:?}"; shift 2 ;;
      --sluice-primary-endpoint) PRIMARY_ENDPOINT_STYLE="${2:?}"; shift 2 ;;
      --backend-tls) BACKEND_TLS="${2:?}"; shift 2 ;;
      --doc) DOC="${2:?}"; shift 2 ;;
      --proxy-base-port) PROXY_BASE_PORT="${2:?}"; shift 2 ;;
      --consistency) CONSISTENCY="${2:?}"; shift 2 ;;
      --section-title) SECTION_TITLE="${2:?}"; shift 2 ;;
      --baseline-jar) BASELINE_JAR="${2:?}"; shift 2 ;;
      --baseline-ref) BASELINE_REF="${2:?}"; shift 2 ;;
      --baseline-label) BASELINE_LABEL="${2:?}"; shift 2 ;;
      --cluster) CLUSTER=1; shift ;;
      --baseline-without-digests) DIGESTS_OFF_BASELINE=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option '$1'" ;;
    esac
  done
  local n
  for n in "$TIME_S" "$THREADS" "$RATE" "$ROUNDS" "$WARMUP_S" "$PROXY_BASE_PORT"; do
    [[ "$n" =~ ^[0-9]+$ ]] || die "--time, --threads, --rounds, --warmup and --proxy-base-port take whole numbers, got '$n'"
  done
  HAPROXY_PRIMARY_PORT=$PROXY_BASE_PORT
  HAPROXY_REPLICA_PORT=$((PROXY_BASE_PORT + 1))
  SLUICE_RW_PORT=$((PROXY_BASE_PORT + 2))
  SLUICE_PRIMARY_PORT=$((PROXY_BASE_PORT + 3))
  SLUICE_ADMIN_PORT=$((PROXY_BASE_PORT + 4))
  ((TIME_S > 0 && THREADS > 0 && ROUNDS > 0)) || die "--time, --threads and --rounds must be positive"
  [[ "$PRIMARY_ENDPOINT_STYLE" == weights || "$PRIMARY_ENDPOINT_STYLE" == single-node ]] ||
    die "--sluice-primary-endpoint takes weights or single-node, got '$PRIMARY_ENDPOINT_STYLE'"
  IFS=',' read -r -a TEST_LIST <<<"$TESTS"
  ((${#TEST_LIST[@]} > 0)) || die "--tests is empty"
  [[ -z "$CONSISTENCY" || "$CONSISTENCY" =~ ^(eventual|session|global)$ ]] ||
    die "--consistency takes eventual, session or global, got '$CONSISTENCY'"
  [[ "$SECTION_TITLE" == "## "* && "$SECTION_TITLE" != *$'\n'* ]] ||
    die "--section-title must be one line starting with '## ', got '$SECTION_TITLE'"
  [[ -z "$BASELINE_JAR" || -z "$BASELINE_REF" ]] || die "--baseline-jar and --baseline-ref exclude each other"
  [[ -n "$BASELINE_LABEL" && "$BASELINE_LABEL" != *"|"* && "$BASELINE_LABEL" != *$'\n'* ]] ||
    die "--baseline-label must be non-empty, one line, without '|', got '$BASELINE_LABEL'"
  if [[ -n "$BASELINE_JAR" ]]; then
    [[ -f "$BASELINE_JAR" ]] || die "--baseline-jar: no file $BASELINE_JAR"
    BASELINE_JAR="$(cd "$(dirname "$BASELINE_JAR")" && pwd -P)/$(basename "$BASELINE_JAR")"
    BASELINE=1
  fi
  if [[ -n "$BASELINE_REF" ]]; then
    git -C "$SLUICE_ROOT" rev-parse --git-dir >/dev/null 2>&1 || die "--baseline-ref needs $SLUICE_ROOT to be a git repository"
    BASELINE_COMMIT="$(git -C "$SLUICE_ROOT" rev-parse --verify --quiet "$BASELINE_REF^{commit}")" ||
      die "--baseline-ref: '$BASELINE_REF' is not a commit of $SLUICE_ROOT"
    BASELINE=1
  fi
  if ((DIGESTS_OFF_BASELINE)); then
    ((!BASELINE && !CLUSTER && !SKIP_SLUICE)) ||
      die "--baseline-without-digests compares Sluice with itself; it does not go with --baseline-jar, --baseline-ref, --cluster or --skip-sluice"
    BASELINE_JAR="$SLUICE_JAR"
    BASELINE=1
    [[ "$BASELINE_LABEL" != before ]] || BASELINE_LABEL="without digests"
  fi
  if ((CLUSTER)); then
    ((!SKIP_SLUICE)) || die "--cluster measures Sluice; it does not go with --skip-sluice"
    if ((!BASELINE)); then
      # The same jar, built (if needed) before it starts: only the cluster: section differs.
      BASELINE_JAR="$SLUICE_JAR"
      BASELINE=1
      [[ "$BASELINE_LABEL" != before ]] || BASELINE_LABEL="without cluster"
    fi
  fi
  if ((SKIP_SLUICE)); then
    ((!BASELINE)) || die "--baseline-jar/--baseline-ref measure Sluice; they do not go with --skip-sluice"
    [[ -z "$CONSISTENCY" ]] || die "--consistency sets Sluice's endpoints; it does not go with --skip-sluice"
  fi
  BASELINE_RW_PORT=$((PROXY_BASE_PORT + 5))
  BASELINE_PRIMARY_PORT=$((PROXY_BASE_PORT + 6))
  BASELINE_ADMIN_PORT=$((PROXY_BASE_PORT + 7))
}

# ---------------------------------------------------------------------------------------
# Processes we start, and their cleanup

WORK=""
HAPROXY_PID=""
SLUICE_PID=""
BASELINE_PID=""
BASELINE_WORKTREE=""

stop_process() {
  local pid="$1" name="$2" i
  if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null; then
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; } # exited: reap it, status irrelevant
    sleep 0.1
  done
  warn "$name (pid $pid) ignored SIGTERM for 10 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true # it may have exited meanwhile
  wait "$pid" 2>/dev/null || true # its exit status is of no interest after a kill
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_process "$SLUICE_PID" Sluice
  stop_process "$BASELINE_PID" "Sluice ($BASELINE_LABEL)"
  stop_process "$HAPROXY_PID" HAProxy
  [[ -z "$ETCD_DIR" ]] || "$SLUICE_ROOT/scripts/etcd.sh" stop --port "$ETCD_PORT" --dir "$ETCD_DIR" >/dev/null 2>&1 || true
  remove_baseline_worktree
  if [[ -n "$WORK" && -d "$WORK" ]]; then
    if ((status == 0)); then
      rm -rf "$WORK"
    else
      note "logs and generated configurations kept in $WORK"
    fi
  fi
  exit "$status"
}

remove_baseline_worktree() {
  [[ -n "$BASELINE_WORKTREE" ]] || return 0
  git -C "$SLUICE_ROOT" worktree remove --force "$BASELINE_WORKTREE" >/dev/null 2>&1 ||
    { rm -rf "$BASELINE_WORKTREE"; git -C "$SLUICE_ROOT" worktree prune || true; }
  BASELINE_WORKTREE=""
}

# ---------------------------------------------------------------------------------------
# Setup

# build_baseline: for --baseline-ref, builds sluice.jar from that revision in a temporary git
# worktree (the repository's own poms, the same Maven command as the current jar's), keeps the jar
# in WORK and removes the worktree.
build_baseline() {
  [[ -n "$BASELINE_REF" ]] || return 0
  require_bin mvn >/dev/null
  require_bin java >/dev/null
  BASELINE_WORKTREE="$WORK/baseline-src"
  info "Building the baseline Sluice ($BASELINE_LABEL) from $BASELINE_REF ($(git -C "$SLUICE_ROOT" log -1 --format='%h %s' "$BASELINE_COMMIT" | cut -c1-72))"
  git -C "$SLUICE_ROOT" worktree add --quiet --detach "$BASELINE_WORKTREE" "$BASELINE_COMMIT" >&2 ||
    die "git worktree add failed for $BASELINE_REF"
  note "in $BASELINE_WORKTREE: mvn -B -q -DskipTests -pl sluice-server -am package"
  (cd "$BASELINE_WORKTREE" && mvn -B -q -DskipTests -pl sluice-server -am package >&2) ||
    die "the baseline build of $BASELINE_REF failed (see the Maven output above)"
  [[ -f "$BASELINE_WORKTREE/sluice-server/target/sluice.jar" ]] ||
    die "the baseline build of $BASELINE_REF left no sluice-server/target/sluice.jar"
  BASELINE_JAR="$WORK/sluice-baseline.jar"
  cp "$BASELINE_WORKTREE/sluice-server/target/sluice.jar" "$BASELINE_JAR"
  remove_baseline_worktree
}

PORT_PRIMARY=""
PORT_RO1=""
PORT_RO2=""

start_sandbox() {
  local dir base_port replicas
  if [[ -n "$SANDBOX_DIR" ]]; then
    dir="$SANDBOX_DIR"
    "$SLUICE_ROOT/scripts/sandbox.sh" start --dir "$dir" >&2
  elif [[ -f "$DEMO_DIR/sandbox.conf" ]]; then
    dir="$DEMO_DIR"
    info "Using the demo sandbox in $dir"
    "$SLUICE_ROOT/scripts/sandbox.sh" start --dir "$dir" >&2
  else
    dir="$BENCH_DIR"
    "$SLUICE_ROOT/scripts/sandbox.sh" start --replicas 2 --base-port "$BENCH_BASE_PORT" --dir "$dir" >&2
  fi
  base_port="$(sed -n 's/^base_port=//p' "$dir/sandbox.conf")"
  replicas="$(sed -n 's/^replicas=//p' "$dir/sandbox.conf")"
  ((replicas >= 2)) || die "the sandbox in $dir has $replicas replica(s); the benchmark needs 2"
  SANDBOX_DIR="$dir"
  PORT_PRIMARY="$base_port"
  PORT_RO1=$((base_port + 1))
  PORT_RO2=$((base_port + 2))
}

sysbench_common() {
  local port="$1"
  printf '%s\n' --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" \
    --mysql-user=app --mysql-password=app --mysql-db=sbtest \
    --tables="$TABLES" --table-size="$TABLE_SIZE"
}

prepare_tables() {
  local rows
  rows="$(mariadb --defaults-file="$SANDBOX_DIR/node0/my.cnf" --batch --skip-column-names -e \
    "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'sbtest%';
     SELECT COUNT(*) FROM sbtest.sbtest$TABLES" 2>/dev/null | paste -sd' ')" || rows=""
  if [[ "$rows" == "$TABLES $TABLE_SIZE" ]]; then
    info "sysbench tables already prepared ($TABLES x $TABLE_SIZE rows)"
  else
    info "Preparing sysbench tables ($TABLES x $TABLE_SIZE rows) on the primary"
    local -a common
    mapfile -t common < <(sysbench_common "$PORT_PRIMARY")
    sysbench oltp_common "${common[@]}" cleanup >"$WORK/prepare.log" 2>&1 ||
      { tail -n 20 "$WORK/prepare.log" >&2; die "sysbench cleanup failed"; }
    sysbench oltp_common "${common[@]}" prepare >>"$WORK/prepare.log" 2>&1 ||
      { tail -n 20 "$WORK/prepare.log" >&2; die "sysbench prepare failed"; }
  fi
  "$SLUICE_ROOT/scripts/sandbox.sh" sync --dir "$SANDBOX_DIR" || die "the replicas did not catch up after prepare"
}

require_free_port() {
  ! port_open "$1" || die "port $1 is in use (see: ss -ltnp 'sport = :$1'); the benchmark needs it"
}

start_haproxy() {
  local haproxy config="$WORK/haproxy.cfg"
  haproxy="$(require_bin haproxy)"
  require_free_port "$HAPROXY_PRIMARY_PORT"
  require_free_port "$HAPROXY_REPLICA_PORT"
  cat >"$config" <<EOF
# A plain TCP hop: bytes in, bytes out, no protocol awareness.
global
    maxconn 4096
defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend to_primary
    bind 127.0.0.1:$HAPROXY_PRIMARY_PORT
    default_backend primary
backend primary
    server primary 127.0.0.1:$PORT_PRIMARY
frontend to_replica
    bind 127.0.0.1:$HAPROXY_REPLICA_PORT
    default_backend replica
backend replica
    server ro1 127.0.0.1:$PORT_RO1
EOF
  "$haproxy" -c -q -f "$config" || die "HAProxy rejected its generated configuration $config"
  info "Starting HAProxy (tcp) on :$HAPROXY_PRIMARY_PORT -> primary, :$HAPROXY_REPLICA_PORT -> ro1"
  "$haproxy" -db -f "$config" >"$WORK/haproxy.log" 2>&1 &
  HAPROXY_PID=$!
  if ! wait_for_port "$HAPROXY_PRIMARY_PORT" "$STARTUP_TIMEOUT_S" || ! wait_for_port "$HAPROXY_REPLICA_PORT" 5; then
    tail -n 20 "$WORK/haproxy.log" >&2
    die "HAProxy did not start listening (log above)"
  fi
}

# write_sluice_config FILE RW_PORT PRIMARY_PORT ADMIN_PORT [EXTRA]: the configuration of a Sluice;
# the baseline gets the same one but for its ports. EXTRA (a top-level section) is appended.
write_sluice_config() {
  local file="$1" rw_port="$2" primary_port="$3" admin_port="$4" extra="${5:-}" primary_endpoint consistency=""
  if [[ "$PRIMARY_ENDPOINT_STYLE" == single-node ]]; then
    primary_endpoint="    nodes: [primary]
    weights: auto"
  else
    # A read-write endpoint must hold a replica; weight 0 keeps reads off it.
    primary_endpoint="    nodes: [primary, ro1]
    weights: {primary: 100, ro1: 0}"
  fi
  [[ -z "$CONSISTENCY" ]] || consistency="
    consistency: $CONSISTENCY"
  cat >"$file" <<EOF
monitor: {user: monitor, password: monitor, interval: 1s}
nodes:
  - {name: primary, address: 127.0.0.1:$PORT_PRIMARY, role: primary, tls: $BACKEND_TLS}
  - {name: ro1, address: 127.0.0.1:$PORT_RO1, role: replica, tls: $BACKEND_TLS}
  - {name: ro2, address: 127.0.0.1:$PORT_RO2, role: replica, tls: $BACKEND_TLS}
endpoints:
  - name: bench-rw
    listen: 127.0.0.1:$rw_port
    mode: read-write
    nodes: [primary, ro1, ro2]
    weights: {primary: 0, ro1: 100, ro2: 100}$consistency
  - name: bench-primary
    listen: 127.0.0.1:$primary_port
    mode: read-write
$primary_endpoint$consistency
admin: {listen: 127.0.0.1:$admin_port, token: ""}
EOF
  [[ -z "$extra" ]] || printf '%s\n' "$extra" >>"$file"
}

# launch_sluice JAR CONFIG LOG: starts a Sluice in the background; its pid in LAUNCHED_PID.
LAUNCHED_PID=""
launch_sluice() {
  local jar="$1" config="$2" log="$3"
  local -a java_opts=()
  read -r -a java_opts <<<"${SLUICE_JAVA_OPTS:-}"
  java "${java_opts[@]}" -jar "$jar" run --config "$config" >"$log" 2>&1 &
  LAUNCHED_PID=$!
}

# await_sluice NAME PID CONFIG LOG PORT...: waits until the Sluice answers queries on every PORT.
await_sluice() {
  local name="$1" pid="$2" config="$3" log="$4" port deadline=$((SECONDS + STARTUP_TIMEOUT_S))
  shift 4
  for port in "$@"; do
    until mariadb --no-defaults -h127.0.0.1 -P"$port" -uapp -papp --connect-timeout=2 -e 'SELECT 1' >/dev/null 2>&1; do
      if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then
        tail -n 30 "$log" >&2
        die "$name did not answer on :$port (log above; config $config)"
      fi
      sleep 0.2
    done
  done
}

start_sluice() {
  build_if_needed >&2 # Maven's output (even -q prints colour resets) stays off stdout, which has the results
  require_free_port "$SLUICE_RW_PORT"
  require_free_port "$SLUICE_PRIMARY_PORT"
  require_free_port "$SLUICE_ADMIN_PORT"
  if ((BASELINE)); then
    require_free_port "$BASELINE_RW_PORT"
    require_free_port "$BASELINE_PRIMARY_PORT"
    require_free_port "$BASELINE_ADMIN_PORT"
  fi
  local cluster_section=""
  if ((CLUSTER)); then
    ETCD_DIR="$WORK/etcd"
    "$SLUICE_ROOT/scripts/install-deps.sh" etcd >&2
    "$SLUICE_ROOT/scripts/etcd.sh" start --port "$ETCD_PORT" --dir "$ETCD_DIR" >&2
    cluster_section="cluster: {etcd: [http://127.0.0.1:$ETCD_PORT], name: bench, prefix: $CLUSTER_PREFIX}"
  fi
  write_sluice_config "$WORK/sluice-bench.yaml" "$SLUICE_RW_PORT" "$SLUICE_PRIMARY_PORT" "$SLUICE_ADMIN_PORT" \
    "$cluster_section"
  info "Starting Sluice on :$SLUICE_RW_PORT (primary + 2 replicas) and :$SLUICE_PRIMARY_PORT (reads on the primary)"
  launch_sluice "$SLUICE_JAR" "$WORK/sluice-bench.yaml" "$WORK/sluice.log"
  SLUICE_PID=$LAUNCHED_PID
  if ((BASELINE)); then
    local baseline_extra=""
    ((!DIGESTS_OFF_BASELINE)) || baseline_extra="query-digests: false"
    write_sluice_config "$WORK/sluice-bench-baseline.yaml" "$BASELINE_RW_PORT" "$BASELINE_PRIMARY_PORT" "$BASELINE_ADMIN_PORT" \
      "$baseline_extra"
    info "Starting Sluice ($BASELINE_LABEL) from $(baseline_source) on :$BASELINE_RW_PORT and :$BASELINE_PRIMARY_PORT"
    launch_sluice "$BASELINE_JAR" "$WORK/sluice-bench-baseline.yaml" "$WORK/sluice-baseline.log"
    BASELINE_PID=$LAUNCHED_PID
  fi
  await_sluice Sluice "$SLUICE_PID" "$WORK/sluice-bench.yaml" "$WORK/sluice.log" "$SLUICE_RW_PORT" "$SLUICE_PRIMARY_PORT"
  if ((BASELINE)); then
    await_sluice "Sluice ($BASELINE_LABEL)" "$BASELINE_PID" "$WORK/sluice-bench-baseline.yaml" "$WORK/sluice-baseline.log" \
      "$BASELINE_RW_PORT" "$BASELINE_PRIMARY_PORT"
  fi
}

# baseline_source: where the baseline jar comes from, for messages and the report.
baseline_source() {
  if [[ -n "$BASELINE_REF" ]]; then
    printf '%s (%s)\n' "$BASELINE_REF" "$(git -C "$SLUICE_ROOT" rev-parse --short "$BASELINE_COMMIT")"
  else
    printf '%s\n' "$BASELINE_JAR"
  fi
}

# ---------------------------------------------------------------------------------------
# Measuring

# Paths per test: "label|port" lines, in the order direct, TCP hop, Sluice, and with a baseline
# Sluice (LABEL).
paths_for() {
  if [[ "$1" == oltp_read_only ]]; then
    echo "direct → ro1|$PORT_RO1"
    echo "HAProxy → ro1|$HAPROXY_REPLICA_PORT"
    ((SKIP_SLUICE)) || echo "Sluice → ro1, ro2|$SLUICE_RW_PORT"
    ((!BASELINE)) || echo "Sluice ($BASELINE_LABEL) → ro1, ro2|$BASELINE_RW_PORT"
  else
    echo "direct → primary|$PORT_PRIMARY"
    echo "HAProxy → primary|$HAPROXY_PRIMARY_PORT"
    ((SKIP_SLUICE)) || echo "Sluice → primary|$SLUICE_PRIMARY_PORT"
    ((!BASELINE)) || echo "Sluice ($BASELINE_LABEL) → primary|$BASELINE_PRIMARY_PORT"
  fi
}

# Options particular to a test: autocommit reads for oltp_read_only (no BEGIN/COMMIT), so
# a read/write-splitting proxy may send them to replicas.
test_options() {
  if [[ "$1" == oltp_read_only ]]; then echo "--skip-trx=on"; fi
}

# sysbench_run TEST PORT SECONDS OUTFILE: runs one measurement.
sysbench_run() {
  local test="$1" port="$2" seconds="$3" out="$4"
  local -a common extra
  mapfile -t common < <(sysbench_common "$port")
  read -r -a extra <<<"$(test_options "$test")"
  if ! sysbench "$test" "${common[@]}" "${extra[@]}" --threads="$THREADS" --rate="$RATE" --time="$seconds" \
    --report-interval=0 run >"$out" 2>&1; then
    tail -n 20 "$out" >&2
    die "sysbench $test on port $port failed (output above, full: $out)"
  fi
}

# parse_result FILE: prints "tps qps p95" from sysbench's summary.
parse_result() {
  awk '
    $1 == "transactions:" { gsub(/[()]/, ""); tps = $3 }
    $1 == "queries:" { gsub(/[()]/, ""); qps = $3 }
    /95th percentile:/ { p95 = $3 }
    END { if (tps == "" || qps == "" || p95 == "") exit 1; print tps, qps, p95 }
  ' "$1"
}

median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) exit 1
    if (NR % 2) printf "%.2f\n", v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", (b > 0 ? a / b : 0) }'; }

declare -A TPS QPS P95 CPU_US
CLOCK_TICKS_PER_S="$(getconf CLK_TCK)"

# proxy_pid PORT: the process of the proxy listening on PORT; empty for a node (direct).
proxy_pid() {
  case "$1" in
    "$HAPROXY_PRIMARY_PORT" | "$HAPROXY_REPLICA_PORT") echo "$HAPROXY_PID" ;;
    "$SLUICE_RW_PORT" | "$SLUICE_PRIMARY_PORT") echo "$SLUICE_PID" ;;
    "$BASELINE_RW_PORT" | "$BASELINE_PRIMARY_PORT") echo "$BASELINE_PID" ;;
  esac
}

# cpu_ticks PID: the user + system CPU time of PID so far, in clock ticks. The fields after the
# last ')' of /proc/PID/stat are fixed (the command name before it may hold spaces): utime and
# stime are the 12th and 13th of them.
cpu_ticks() {
  awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# cpu_per_transaction TICKS TPS: CPU microseconds per transaction over a run of TIME_S seconds.
cpu_per_transaction() {
  awk -v t="$1" -v hz="$CLOCK_TICKS_PER_S" -v tps="$2" -v s="$TIME_S" \
    'BEGIN { printf "%.1f\n", (tps > 0 ? t * 1e6 / hz / (tps * s) : 0) }'
}

measure() {
  local test round line label port i n offset parsed tps qps p95 pid ticks
  local -a paths
  if ((WARMUP_S > 0)); then
    for test in "${TEST_LIST[@]}"; do
      mapfile -t paths < <(paths_for "$test")
      for line in "${paths[@]}"; do
        info "warm-up: $test via ${line%%|*} (${WARMUP_S}s)"
        sysbench_run "$test" "${line##*|}" "$WARMUP_S" "$WORK/warmup.txt"
      done
    done
  fi
  for ((round = 1; round <= ROUNDS; round++)); do
    for test in "${TEST_LIST[@]}"; do
      mapfile -t paths < <(paths_for "$test")
      n=${#paths[@]}
      offset=$(((round - 1) % n))
      for ((i = 0; i < n; i++)); do
        line="${paths[(i + offset) % n]}"
        label="${line%%|*}"
        port="${line##*|}"
        info "round $round/$ROUNDS: $test via $label (:$port, ${TIME_S}s, $THREADS threads)"
        pid="$(proxy_pid "$port")"
        [[ -z "$pid" ]] || ticks="$(cpu_ticks "$pid")"
        sysbench_run "$test" "$port" "$TIME_S" "$WORK/$round-$test-$port.txt"
        [[ -z "$pid" ]] || ticks=$(($(cpu_ticks "$pid") - ticks))
        parsed="$(parse_result "$WORK/$round-$test-$port.txt")" ||
          die "cannot read tps/qps/p95 from $WORK/$round-$test-$port.txt"
        read -r tps qps p95 <<<"$parsed"
        TPS["$test|$label|$round"]="$tps"
        QPS["$test|$label|$round"]="$qps"
        P95["$test|$label|$round"]="$p95"
        if [[ -n "$pid" ]]; then
          CPU_US["$test|$label|$round"]="$(cpu_per_transaction "$ticks" "$tps")"
          note "tps $tps, qps $qps, p95 $p95 ms, proxy CPU ${CPU_US["$test|$label|$round"]} µs a transaction"
        else
          note "tps $tps, qps $qps, p95 $p95 ms"
        fi
      done
    done
  done
}

# ---------------------------------------------------------------------------------------
# Reporting

# values_of tps|qps|p95 KEY: one value per round.
values_of() {
  local kind="$1" key="$2" round
  for ((round = 1; round <= ROUNDS; round++)); do
    case "$kind" in
      tps) echo "${TPS["$key|$round"]}" ;;
      qps) echo "${QPS["$key|$round"]}" ;;
      p95) echo "${P95["$key|$round"]}" ;;
      cpu) echo "${CPU_US["$key|$round"]}" ;;
    esac
  done
}

results_markdown() {
  local test line label key hop sluice round
  local -a paths tps_list ratios
  echo "| test | path | tps (median) | qps (median) | p95 latency ms (median) | tps by round |"
  echo "|---|---|--:|--:|--:|---|"
  for test in "${TEST_LIST[@]}"; do
    mapfile -t paths < <(paths_for "$test")
    for line in "${paths[@]}"; do
      label="${line%%|*}"
      key="$test|$label"
      mapfile -t tps_list < <(values_of tps "$key")
      # shellcheck disable=SC2046 # one number per round
      printf '| %s | %s | %s | %s | %s | %s |\n' "$test" "$label" "$(median "${tps_list[@]}")" \
        "$(median $(values_of qps "$key"))" "$(median $(values_of p95 "$key"))" "$(
          IFS=/
          echo "${tps_list[*]}"
        )"
    done
  done
  echo
  local before="Sluice ($BASELINE_LABEL)"
  if ((BASELINE)); then
    echo "| test | Sluice / TCP hop (tps), by round | Sluice / TCP hop, median | TCP hop / direct, median | Sluice / $before (tps), by round | Sluice / $before, median |"
    echo "|---|---|--:|--:|---|--:|"
  else
    echo "| test | Sluice / TCP hop (tps), by round | Sluice / TCP hop, median | TCP hop / direct, median |"
    echo "|---|---|--:|--:|"
  fi
  for test in "${TEST_LIST[@]}"; do
    mapfile -t paths < <(paths_for "$test")
    local direct="${paths[0]%%|*}" hop_label="${paths[1]%%|*}" hop_ratios=() baseline_ratios=()
    ratios=()
    for ((round = 1; round <= ROUNDS; round++)); do
      hop="${TPS["$test|$hop_label|$round"]}"
      hop_ratios+=("$(ratio "$hop" "${TPS["$test|$direct|$round"]}")")
      if ((!SKIP_SLUICE)); then
        sluice="${TPS["$test|${paths[2]%%|*}|$round"]}"
        ratios+=("$(ratio "$sluice" "$hop")")
      fi
      if ((BASELINE)); then
        baseline_ratios+=("$(ratio "$sluice" "${TPS["$test|${paths[3]%%|*}|$round"]}")")
      fi
    done
    if ((SKIP_SLUICE)); then
      printf '| %s | not measured (--skip-sluice) | – | %s |\n' "$test" "$(median "${hop_ratios[@]}")"
    elif ((BASELINE)); then
      printf '| %s | %s | **%s** | %s | %s | **%s** |\n' "$test" "$(
        IFS=/
        echo "${ratios[*]}"
      )" "$(median "${ratios[@]}")" "$(median "${hop_ratios[@]}")" "$(
        IFS=/
        echo "${baseline_ratios[*]}"
      )" "$(median "${baseline_ratios[@]}")"
    else
      printf '| %s | %s | **%s** | %s |\n' "$test" "$(
        IFS=/
        echo "${ratios[*]}"
      )" "$(median "${ratios[@]}")" "$(median "${hop_ratios[@]}")"
    fi
  done
  cpu_markdown
}

# cpu_markdown: each proxy's CPU time per transaction (user + system, every thread of the process,
# from /proc while its own runs went on). Less moved by a busy machine than tps, since a proxy
# kept waiting uses no CPU meanwhile: the finer measure of what a change costs the proxy.
cpu_markdown() {
  local test line label key
  local round
  local -a paths cpu_list sluice_cpu baseline_cpu cpu_ratios
  echo
  echo "| test | proxy | CPU µs per transaction (median) | by round |"
  echo "|---|---|--:|---|"
  for test in "${TEST_LIST[@]}"; do
    mapfile -t paths < <(paths_for "$test")
    for line in "${paths[@]:1}"; do
      label="${line%%|*}"
      key="$test|$label"
      mapfile -t cpu_list < <(values_of cpu "$key")
      printf '| %s | %s | %s | %s |\n' "$test" "$label" "$(median "${cpu_list[@]}")" "$(
        IFS=/
        echo "${cpu_list[*]}"
      )"
    done
  done
  ((BASELINE)) || return 0
  echo
  echo "| test | Sluice / Sluice ($BASELINE_LABEL) (CPU per transaction), by round | median |"
  echo "|---|---|--:|"
  for test in "${TEST_LIST[@]}"; do
    mapfile -t paths < <(paths_for "$test")
    mapfile -t sluice_cpu < <(values_of cpu "$test|${paths[2]%%|*}")
    mapfile -t baseline_cpu < <(values_of cpu "$test|${paths[3]%%|*}")
    cpu_ratios=()
    for ((round = 0; round < ROUNDS; round++)); do
      cpu_ratios+=("$(ratio "${sluice_cpu[round]}" "${baseline_cpu[round]}")")
    done
    printf '| %s | %s | **%s** |\n' "$test" "$(
      IFS=/
      echo "${cpu_ratios[*]}"
    )" "$(median "${cpu_ratios[@]}")"
  done
}

# shell_word WORD: WORD as the shell would need it, quoted only when it must be.
shell_word() {
  if [[ "$1" =~ ^[A-Za-z0-9_./:=,@+~^-]+$ ]]; then
    printf '%s' "$1"
  else
    printf "'%s'" "${1//\'/\'\\\'\'}"
  fi
}

# The options of this run that are not there by default and that the command line shown in the
# report does not otherwise give (empty in a default run).
extra_options() {
  ((RATE == 0)) || printf ' --rate %s' "$RATE"
  [[ -z "$CONSISTENCY" ]] || printf ' --consistency %s' "$CONSISTENCY"
  ((!CLUSTER)) || printf ' --cluster'
  ((!DIGESTS_OFF_BASELINE)) || printf ' --baseline-without-digests'
  [[ -z "$BASELINE_REF" ]] || printf ' --baseline-ref %s' "$(shell_word "$BASELINE_REF")"
  [[ -z "$BASELINE_JAR" || -n "$BASELINE_REF" || ("$CLUSTER$DIGESTS_OFF_BASELINE" != 00 && "$BASELINE_JAR" == "$SLUICE_JAR") ]] ||
    printf ' --baseline-jar %s' "$(shell_word "$BASELINE_JAR")"
  [[ "$BASELINE_LABEL" == before || ("$CLUSTER" == 1 && "$BASELINE_LABEL" == "without cluster") ||
    ("$DIGESTS_OFF_BASELINE" == 1 && "$BASELINE_LABEL" == "without digests") ]] ||
    printf ' --baseline-label %s' "$(shell_word "$BASELINE_LABEL")"
  [[ "$SECTION_TITLE" == "$DEFAULT_SECTION_TITLE" ]] || printf ' --section-title %s' "$(shell_word "$SECTION_TITLE")"
}

commands_markdown() {
  local test line
  local -a paths extra
  echo '```sh'
  echo "# sluice-bench/scripts/sysbench-compare.sh --time $TIME_S --threads $THREADS --rounds $ROUNDS --tests $TESTS --warmup $WARMUP_S --proxy-base-port $PROXY_BASE_PORT$( ((SKIP_SLUICE)) && echo ' --skip-sluice')$(extra_options)"
  echo "sysbench oltp_common $(sysbench_common "$PORT_PRIMARY" | paste -sd' ') prepare"
  for test in "${TEST_LIST[@]}"; do
    mapfile -t paths < <(paths_for "$test")
    read -r -a extra <<<"$(test_options "$test")"
    for line in "${paths[@]}"; do
      echo "sysbench $test $(sysbench_common "${line##*|}" | paste -sd' ') ${extra[*]:+${extra[*]} }--threads=$THREADS$( ((RATE == 0)) || echo " --rate=$RATE") --time=$TIME_S --report-interval=0 run   # ${line%%|*}"
    done
  done
  echo '```'
  echo
  echo "HAProxy configuration (\`haproxy -db -f haproxy.cfg\`):"
  echo
  echo '```'
  grep -v '^#' "$WORK/haproxy.cfg"
  echo '```'
  if ((!SKIP_SLUICE)); then
    echo
    echo "Sluice configuration (\`java ${SLUICE_JAVA_OPTS:-} -jar sluice-server/target/sluice.jar run --config sluice-bench.yaml\`):"
    echo
    echo '```yaml'
    cat "$WORK/sluice-bench.yaml"
    echo '```'
  fi
  if ((BASELINE)); then
    echo
    echo "Sluice ($BASELINE_LABEL) (\`java ${SLUICE_JAVA_OPTS:-} -jar sluice-baseline.jar run --config sluice-bench-baseline.yaml\`,"
    echo "the jar $(baseline_markdown)): the same configuration but for its ports$( ((CLUSTER)) && echo ' and without the cluster: section')$( ((DIGESTS_OFF_BASELINE)) && echo ' and with `query-digests: false`'),"
    echo "\`bench-rw\` on $BASELINE_RW_PORT, \`bench-primary\` on $BASELINE_PRIMARY_PORT, admin on $BASELINE_ADMIN_PORT."
  fi
}

# baseline_markdown: where the baseline jar came from, for the report.
baseline_markdown() {
  if [[ -n "$BASELINE_REF" ]]; then
    echo "built from \`$BASELINE_REF\` ($(git -C "$SLUICE_ROOT" log -1 --format='%h, %cs' "$BASELINE_COMMIT")) by \`mvn -B -q -DskipTests -pl sluice-server -am package\` in a git worktree"
  else
    echo "\`$BASELINE_JAR\`"
  fi
}

# current_markdown: the commit the current jar is built from.
current_markdown() {
  local commit dirty=""
  commit="$(git -C "$SLUICE_ROOT" log -1 --format='%h, %cs' 2>/dev/null)" || { echo "the working tree"; return 0; }
  [[ -z "$(git -C "$SLUICE_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || dirty=" plus uncommitted changes"
  echo "commit $commit$dirty"
}

section_markdown() {
  local cpu memory java_version="" skipped_note=""
  if ((SKIP_SLUICE)); then
    skipped_note="- Sluice was not measured in this run (--skip-sluice)."
  fi
  if [[ -n "$CONSISTENCY" ]]; then
    skipped_note="- Consistency: \`consistency: $CONSISTENCY\` on every Sluice endpoint$( ((BASELINE)) && echo ", in both instances")."
  fi
  if ((CLUSTER)); then
    skipped_note+="${skipped_note:+$'\n'}- Cluster mode: *Sluice* runs with \`cluster:\` against a local etcd (\`scripts/etcd.sh\`, one member
  on the same machine): it seeds etcd, registers under its lease, campaigns for the leadership and watches the
  configuration throughout; *Sluice ($BASELINE_LABEL)* runs the same configuration without \`cluster:\`."
  fi
  if ((DIGESTS_OFF_BASELINE)); then
    skipped_note+="${skipped_note:+$'\n'}- Query digests: *Sluice* counts every statement by digest (the default); *Sluice ($BASELINE_LABEL)*
  is the same jar with \`query-digests: false\`, so the ratio is what digests alone cost (the latency
  histograms run in both)."
  fi
  if ((BASELINE)); then
    skipped_note+="${skipped_note:+$'\n'}- Before/after: *Sluice* is \`sluice-server/target/sluice.jar\` of $(current_markdown);
  *Sluice ($BASELINE_LABEL)* is the jar $(baseline_markdown).
  Both run throughout, with the same configuration on their own ports, and are two paths of every test,
  interleaved and rotated with the others; *Sluice / Sluice ($BASELINE_LABEL)* is their tps ratio."
  fi
  cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  memory="$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  ((SKIP_SLUICE)) || java_version=", $(java -version 2>&1 | head -n1)"
  cat <<EOF
$SECTION_TITLE

Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`sluice-bench/scripts/sysbench-compare.sh\`.

- Machine: $(nproc) CPUs (${cpu:-unknown CPU}), $memory; sysbench, MariaDB, HAProxy$( ((SKIP_SLUICE)) || echo " and Sluice") all share it.
- Versions: $(sysbench --version), HAProxy $(haproxy -v | head -n1 | awk '{ print $3 }'), MariaDB $("$(find_bin mariadbd)" --version | grep -oE 'Ver [^ ]+' | cut -d' ' -f2)$java_version.
- Setup: sandbox 1 primary + 2 replicas (ports $PORT_PRIMARY-$PORT_RO2), $TABLES tables × $TABLE_SIZE rows,
  $THREADS threads$( ((RATE == 0)) || echo ", a fixed load of $RATE transactions a second (sysbench \`--rate\`)"), ${TIME_S} s per run, rounds: $ROUNDS, paths interleaved and their order rotated each round,
  ${WARMUP_S} s unrecorded warm-up per path. The TCP hop is HAProxy in \`mode tcp\`.
  Sluice's links to the nodes: TLS \`$BACKEND_TLS\` (clients connect in plaintext on every path).
- Proxy CPU per transaction: the proxy process's user + system CPU time (all its threads, from
  \`/proc/PID/stat\`) over its own runs, divided by their transactions. A proxy kept waiting by a
  busy machine spends no CPU meanwhile, so this moves less than tps from round to round.
$skipped_note

$(results_markdown)

Commands:

$(commands_markdown)
EOF
}

# write_section FILE: replaces the section (from its title to the next "## " heading) or
# appends it; creates the file when missing.
write_section() {
  local doc="$1" section="$WORK/section.md" tmp
  section_markdown >"$section"
  mkdir -p "$(dirname "$doc")"
  [[ -f "$doc" ]] || printf '# Performance\n\nFigures measured side by side in one run; see each section for how.\n' >"$doc"
  tmp="$(mktemp "$doc.XXXXXX")"
  awk -v title="$SECTION_TITLE" -v section="$section" '
    function emit(   line) { while ((getline line < section) > 0) print line; close(section); done = 1 }
    $0 == title { if (!done) { emit(); print "" } skipping = 1; next }
    skipping && /^## / { skipping = 0 }
    !skipping { print }
    END { if (!done) { print ""; emit() } }
  ' "$doc" >"$tmp"
  mv "$tmp" "$doc"
  info "Wrote the section '$SECTION_TITLE' in $doc"
}

main() {
  parse_options "$@"
  "$SLUICE_ROOT/scripts/install-deps.sh" mariadb sysbench haproxy
  WORK="$(mktemp -d -t sluice-sysbench.XXXXXX)"
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  build_baseline
  start_sandbox
  prepare_tables
  start_haproxy
  ((SKIP_SLUICE)) || start_sluice
  measure
  printf '\n' >&2
  results_markdown
  write_section "$DOC"
}

main "$@"
