#!/usr/bin/env bash
# replica-faults: what a replica's death or hang costs clients of a read-write endpoint.
#
#   sluice-bench/scripts/replica-faults.sh [--fault kill|stop|both] [--moments N] [OPTIONS]
#
# For each of N moments (from the instant sysbench starts — its connects and PREPAREs — to well
# into its run), sysbench oltp_read_only with server-side prepared statements (--db-ps-mode=auto)
# runs through Sluice with 16 threads while one replica (ro1 and ro2 in turn) is
#   kill: SIGKILLed at that moment, then started again a few seconds later;
#   stop: SIGSTOPped at that moment for longer than the monitor needs to notice, then SIGCONTed.
# A run passes when sysbench ends normally with no error and no reconnect; a stop run also needs
# every transaction answered within the monitor's detection of a hung node (one interval, then
# down-after missed checks) plus the transaction's own time: sysbench's maximum latency shows whether any session hung on the
# paused replica. Sandbox (1 primary + 2 replicas) and Sluice are started here on their own ports.
#
# Benchmarks are not tests: run it by hand; --report FILE appends the table to FILE.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"

readonly READABLE_TIMEOUT_S=60
readonly DATABASE=sluice_faults
readonly TABLES=4
readonly TABLE_SIZE=10000
# Offsets (ms after sysbench starts) of the first moments: its connects and PREPAREs happen here.
readonly EARLY_OFFSETS_MS=(0 10 25 50 100 150 250 400)
# Later moments are spread evenly up to this far into the run.
readonly LAST_OFFSET_MS=6000
readonly RUN_SECONDS=12
# A killed replica is started again this long after the kill, while sysbench still runs.
readonly RESTART_AFTER_S=2
# A stopped replica stays stopped this long: past the monitor's detection.
readonly STOP_FOR_S=6
readonly MONITOR_INTERVAL_MS=1000
readonly MONITOR_CONNECT_TIMEOUT_MS=1000
readonly MONITOR_QUERY_TIMEOUT_MS=1000
readonly MONITOR_DOWN_AFTER=2
# sysbench's latency is per transaction (14 queries): what a healthy one takes, on a busy machine.
readonly TRANSACTION_SLACK_MS=500

SANDBOX_DIR="$SLUICE_ROOT/.sandbox/faults"
BASE_PORT=3371
PROXY_PORT=6461
FAULT=both
MOMENTS=20
THREADS=16
REPORT=""

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --fault kill|stop|both  which fault (default both: N moments each)
  --moments N             moments per fault (default $MOMENTS)
  --threads N             sysbench threads (default $THREADS)
  --sandbox-dir D         the sandbox (default .sandbox/faults), on --base-port P (default $BASE_PORT)
  --proxy-port P          Sluice's read-write endpoint; admin on P+8 (default $PROXY_PORT)
  --report FILE           append the results table to FILE
EOF
}

parse_options() {
  while (($#)); do
    case "$1" in
      --fault) FAULT="${2:?}"; shift 2 ;;
      --moments) MOMENTS="${2:?}"; shift 2 ;;
      --threads) THREADS="${2:?}"; shift 2 ;;
      --sandbox-dir) SANDBOX_DIR="${2:?}"; shift 2 ;;
      --base-port) BASE_PORT="${2:?}"; shift 2 ;;
      --proxy-port) PROXY_PORT="${2:?}"; shift 2 ;;
      --report) REPORT="${2:?}"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option '$1'" ;;
    esac
  done
  [[ "$FAULT" =~ ^(kill|stop|both)$ ]] || die "--fault takes kill, stop or both"
  [[ "$MOMENTS" =~ ^[1-9][0-9]*$ && "$THREADS" =~ ^[1-9][0-9]*$ ]] || die "--moments and --threads take numbers"
}

SYSBENCH_PID=""

# Run by the shared cleanup before it stops Sluice and the sandbox: no node may stay paused.
bench_before_stop() {
  [[ -z "$SYSBENCH_PID" ]] || kill -KILL "$SYSBENCH_PID" 2>/dev/null || true
  [[ ! -f "$SANDBOX_DIR/sandbox.conf" ]] || resume_all_nodes
}

node_pid() { cat "$SANDBOX_DIR/node$1/mariadbd.pid" 2>/dev/null; }

resume_all_nodes() {
  local k pid
  for k in 0 1 2; do
    pid="$(node_pid "$k" || true)"
    [[ -z "$pid" ]] || kill -CONT "$pid" 2>/dev/null || true
  done
}

sql_primary() {
  mariadb --defaults-file="$SANDBOX_DIR/node0/my.cnf" --batch --skip-column-names -e "$1"
}

start_sandbox() {
  bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" 2
  sql_primary "CREATE DATABASE IF NOT EXISTS $DATABASE"
}

sysbench_args() {
  printf '%s\n' --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=app --mysql-password=app \
    --mysql-db="$DATABASE" --tables="$TABLES" --table-size="$TABLE_SIZE"
}

prepare_tables() {
  local -a args
  mapfile -t args < <(sysbench_args "$BASE_PORT")
  info "Preparing sysbench tables ($TABLES x $TABLE_SIZE rows) on the primary"
  bench_sysbench_prepare oltp_read_only "${args[@]}"
}

start_sluice() {
  cat >"$BENCH_WORK/sluice.yaml" <<EOF
monitor: {user: monitor, password: monitor, interval: ${MONITOR_INTERVAL_MS}ms, connect-timeout: ${MONITOR_CONNECT_TIMEOUT_MS}ms, query-timeout: ${MONITOR_QUERY_TIMEOUT_MS}ms, down-after: ${MONITOR_DOWN_AFTER}}
nodes:
  - {name: primary, address: 127.0.0.1:$BASE_PORT, role: primary}
  - {name: ro1, address: 127.0.0.1:$((BASE_PORT + 1)), role: replica}
  - {name: ro2, address: 127.0.0.1:$((BASE_PORT + 2)), role: replica}
endpoints:
  - {name: rw, listen: 127.0.0.1:$PROXY_PORT, mode: read-write}
admin: {listen: 127.0.0.1:$((PROXY_PORT + 8)), token: ""}
EOF
  info "Starting Sluice (read-write endpoint :$PROXY_PORT)"
  bench_sluice_start "" "$BENCH_WORK/sluice.yaml" "$BENCH_WORK/sluice.log" "$PROXY_PORT"
}

# readable NODE: true when Sluice reports NODE readable on the endpoint.
readable() {
  curl -fsS "http://127.0.0.1:$((PROXY_PORT + 8))/v1/nodes/$1" 2>/dev/null | grep -q '"readable" *: *true'
}

wait_readable() {
  local node="$1" deadline=$((SECONDS + READABLE_TIMEOUT_S))
  until readable "$node"; do
    ((SECONDS < deadline)) || die "$node did not become readable in Sluice within ${READABLE_TIMEOUT_S}s"
    sleep 0.2
  done
}

# offset_ms K: the moment of fault K (1-based) in ms after sysbench starts.
offset_ms() {
  local k="$1" early=${#EARLY_OFFSETS_MS[@]}
  if ((k <= early)); then
    echo "${EARLY_OFFSETS_MS[k - 1]}"
  elif ((MOMENTS > early)); then
    echo $((EARLY_OFFSETS_MS[early - 1] + (LAST_OFFSET_MS - EARLY_OFFSETS_MS[early - 1]) * (k - early) / (MOMENTS - early)))
  fi
}

sleep_ms() { sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"; }

# one_run FAULT K: sysbench with FAULT at moment K; prints "fault k node offset verdict max_ms errors reconnects".
one_run() {
  local fault="$1" k="$2" replica node_index pid offset out verdict
  node_index=$((1 + (k - 1) % 2))
  replica="ro$node_index"
  offset="$(offset_ms "$k")"
  out="$BENCH_WORK/$fault-$k.txt"
  local -a args
  mapfile -t args < <(sysbench_args "$PROXY_PORT")
  sysbench oltp_read_only "${args[@]}" --db-ps-mode=auto --skip-trx=on --threads="$THREADS" --time="$RUN_SECONDS" \
    --report-interval=1 run >"$out" 2>&1 &
  SYSBENCH_PID=$!
  sleep_ms "$offset"
  pid="$(node_pid "$node_index")"
  if [[ "$fault" == kill ]]; then
    kill -KILL "$pid"
    sleep "$RESTART_AFTER_S"
    "$SLUICE_ROOT/scripts/sandbox.sh" start-node "$replica" --dir "$SANDBOX_DIR" >>"$BENCH_WORK/restarts.log" 2>&1 ||
      die "could not start $replica again (see $BENCH_WORK/restarts.log)"
  else
    kill -STOP "$pid"
    sleep "$STOP_FOR_S"
    kill -CONT "$pid"
  fi
  local status=0
  wait "$SYSBENCH_PID" || status=$?
  SYSBENCH_PID=""
  local errors reconnects max_ms
  errors="$(awk '/ignored errors:/ { print $3 }' "$out")"
  reconnects="$(awk '/reconnects:/ { print $2 }' "$out")"
  max_ms="$(awk '$1 == "max:" { print $2 }' "$out")"
  verdict=pass
  if ((status != 0)) || grep -q FATAL "$out" || [[ "${errors:-x}" != 0 || "${reconnects:-x}" != 0 ]]; then
    verdict=FAIL
  elif [[ "$fault" == stop ]] && awk -v m="${max_ms:-0}" -v b="$(stop_bound_ms)" 'BEGIN { exit !(m > b) }'; then
    verdict=HUNG
  fi
  echo "$fault $k $replica $offset $verdict ${max_ms:-?} ${errors:-?} ${reconnects:-?}"
  # The next moment starts from a healthy cluster that Sluice sees healthy.
  "$SLUICE_ROOT/scripts/sandbox.sh" sync --dir "$SANDBOX_DIR" >/dev/null 2>&1 || die "the replicas did not catch up"
  wait_readable "$replica"
}

# The monitor's detection of a hung node: the next tick, the first check's timeout, then each
# further check (retried at once, on a new connection) until down-after checks were missed.
detection_ms() {
  echo $((MONITOR_INTERVAL_MS + MONITOR_QUERY_TIMEOUT_MS
    + (MONITOR_DOWN_AFTER - 1) * (MONITOR_CONNECT_TIMEOUT_MS + MONITOR_QUERY_TIMEOUT_MS)))
}
stop_bound_ms() { echo $(($(detection_ms) + TRANSACTION_SLACK_MS)); }

print_table() {
  printf '| fault | moment | replica | at (ms) | result | max latency (ms) | errors | reconnects |\n'
  printf '|---|--:|---|--:|---|--:|--:|--:|\n'
  local line
  while read -r line; do
    # shellcheck disable=SC2086 # fields of one result line
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' $line
  done <"$BENCH_WORK/results.txt"
}

main() {
  parse_options "$@"
  require_bin sysbench >/dev/null
  require_bin curl >/dev/null
  bench_begin replica-faults
  start_sandbox
  prepare_tables
  start_sluice
  wait_readable ro1
  wait_readable ro2
  : >"$BENCH_WORK/results.txt"
  local fault k line
  local -a faults=("$FAULT")
  [[ "$FAULT" != both ]] || faults=(kill stop)
  for fault in "${faults[@]}"; do
    for ((k = 1; k <= MOMENTS; k++)); do
      line="$(one_run "$fault" "$k")"
      info "$line"
      echo "$line" >>"$BENCH_WORK/results.txt"
    done
  done
  local failed
  failed="$(awk '$5 != "pass"' "$BENCH_WORK/results.txt" | wc -l)"
  print_table
  printf '\n%s of %s runs failed (stop runs: max latency bound %s ms)\n' "$failed" "$(wc -l <"$BENCH_WORK/results.txt")" \
    "$(stop_bound_ms)"
  if [[ -n "$REPORT" ]]; then
    { printf '\n'; print_table; } >>"$REPORT"
  fi
  ((failed == 0))
}

main "$@"
