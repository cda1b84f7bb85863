#!/usr/bin/env bash
# switchover-under-load: what a planned switchover costs the clients of a read-write endpoint.
#
#   sluice-bench/scripts/switchover-under-load.sh [OPTIONS]
#
# sysbench oltp_read_write runs through Sluice as an account with ALL PRIVILEGES (it could write
# through read_only, so only Sluice's fence keeps the old primary clean), while Sluice switches the
# primary over to ro1 and, later, back. Reported: each switchover's hold of writes and its steps
# (Sluice's own timings), sysbench's transactions per second in the seconds around it, client
# errors and reconnects, the longest transaction; afterwards every node must be at the same GTID
# position, replicate, and hold the same table checksums. Sandbox (1 primary + 2 replicas) and
# Sluice are started here on their own ports.
#
# Benchmarks are not tests: run it by hand; --report FILE appends the tables to FILE.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"

readonly DATABASE=sluice_switchover
readonly TABLES=4
readonly TABLE_SIZE=10000
readonly BENCH_USER=switchover_bench
readonly READABLE_TIMEOUT_S=60
# Seconds of sysbench's per-second report averaged before and after a switchover.
readonly WINDOW_S=5

SANDBOX_DIR="$SLUICE_ROOT/.sandbox/switchover"
BASE_PORT=3391
PROXY_PORT=6471
THREADS=8
FIRST_AT_S=10
BACK_AFTER_S=15
RUN_SECONDS=40
REPORT=""

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<EOF

Options:
  --threads N        sysbench threads (default $THREADS)
  --at S             the switchover to ro1, S seconds into the run (default $FIRST_AT_S)
  --back-after S     the switchover back to primary, S seconds later (default $BACK_AFTER_S)
  --time S           sysbench's run (default $RUN_SECONDS)
  --sandbox-dir D    the sandbox (default .sandbox/switchover), on --base-port P (default $BASE_PORT)
  --proxy-port P     Sluice's read-write endpoint; admin on P+8 (default $PROXY_PORT)
  --report FILE      append the results to FILE
EOF
}

parse_options() {
  while (($#)); do
    case "$1" in
      --threads) THREADS="${2:?}"; shift 2 ;;
      --at) FIRST_AT_S="${2:?}"; shift 2 ;;
      --back-after) BACK_AFTER_S="${2:?}"; shift 2 ;;
      --time) RUN_SECONDS="${2:?}"; shift 2 ;;
      --sandbox-dir) SANDBOX_DIR="${2:?}"; shift 2 ;;
      --base-port) BASE_PORT="${2:?}"; shift 2 ;;
      --proxy-port) PROXY_PORT="${2:?}"; shift 2 ;;
      --report) REPORT="${2:?}"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option '$1'" ;;
    esac
  done
  local n
  for n in "$THREADS" "$FIRST_AT_S" "$BACK_AFTER_S" "$RUN_SECONDS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--threads, --at, --back-after and --time take whole numbers"
  done
  ((FIRST_AT_S + BACK_AFTER_S + WINDOW_S < RUN_SECONDS)) ||
    die "--time must leave $WINDOW_S s after the switchover back (at $((FIRST_AT_S + BACK_AFTER_S)) s)"
}

SYSBENCH_PID=""
LOAD_STARTED_MS=0
bench_before_stop() {
  [[ -z "$SYSBENCH_PID" ]] || kill -KILL "$SYSBENCH_PID" 2>/dev/null || true
}

sql_node() {
  mariadb --defaults-file="$SANDBOX_DIR/node$1/my.cnf" --batch --skip-column-names -e "$2"
}

sysbench_args() {
  printf '%s\n' --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user="$BENCH_USER" \
    --mysql-password="$BENCH_USER" --mysql-db="$DATABASE" --tables="$TABLES" --table-size="$TABLE_SIZE"
}

prepare() {
  bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" 2
  sql_node 0 "CREATE DATABASE IF NOT EXISTS $DATABASE;
    CREATE USER IF NOT EXISTS '$BENCH_USER'@'127.0.0.1' IDENTIFIED BY '$BENCH_USER';
    GRANT ALL PRIVILEGES ON *.* TO '$BENCH_USER'@'127.0.0.1'"
  local -a args
  mapfile -t args < <(sysbench_args "$BASE_PORT")
  info "Preparing sysbench tables ($TABLES x $TABLE_SIZE rows) on the primary"
  bench_sysbench_prepare oltp_read_write "${args[@]}"
}

start_sluice() {
  {
    bench_cluster_yaml "$BASE_PORT" 2
    echo "replication: {user: repl, password: repl}"
    echo "endpoints:"
    echo "  - {name: rw, listen: 127.0.0.1:$PROXY_PORT, mode: read-write}"
    bench_admin_yaml $((PROXY_PORT + 8))
  } >"$BENCH_WORK/sluice.yaml"
  info "Starting Sluice (read-write endpoint :$PROXY_PORT)"
  bench_sluice_start "" "$BENCH_WORK/sluice.yaml" "$BENCH_WORK/sluice.log" "$PROXY_PORT"
  local node deadline=$((SECONDS + READABLE_TIMEOUT_S))
  for node in ro1 ro2; do
    until curl -fsS "http://127.0.0.1:$((PROXY_PORT + 8))/v1/nodes/$node" 2>/dev/null | grep -q '"readable" *: *true'; do
      ((SECONDS < deadline)) || die "$node did not become readable in Sluice within ${READABLE_TIMEOUT_S}s"
      sleep 0.2
    done
  done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# switch_over TARGET NAME: asks Sluice for a switchover to TARGET; its answer goes to NAME.json and
# the second of sysbench's run it started in to NAME.at.
switch_over() {
  local status
  echo $((($(now_ms) - LOAD_STARTED_MS) / 1000)) >"$BENCH_WORK/$2.at"
  status="$(curl -sS -o "$BENCH_WORK/$2.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"to\": \"$1\"}" "http://127.0.0.1:$((PROXY_PORT + 8))/v1/switchover")" || status=000
  [[ "$status" == 200 ]] || { cat "$BENCH_WORK/$2.json" >&2 || true; die "the switchover to $1 answered $status"; }
}

run_load() {
  local -a args
  mapfile -t args < <(sysbench_args "$PROXY_PORT")
  info "sysbench oltp_read_write, $THREADS threads, ${RUN_SECONDS}s; switchover to ro1 at ${FIRST_AT_S}s, back at $((FIRST_AT_S + BACK_AFTER_S))s"
  sysbench oltp_read_write "${args[@]}" --threads="$THREADS" --time="$RUN_SECONDS" --report-interval=1 \
    run >"$BENCH_WORK/sysbench.txt" 2>&1 &
  SYSBENCH_PID=$!
  LOAD_STARTED_MS="$(now_ms)"
  sleep "$FIRST_AT_S"
  switch_over ro1 there
  sleep "$BACK_AFTER_S"
  switch_over primary back
  local status=0
  wait "$SYSBENCH_PID" || status=$?
  SYSBENCH_PID=""
  ((status == 0)) || { tail -n 20 "$BENCH_WORK/sysbench.txt" >&2; die "sysbench failed (exit $status)"; }
}

# tps_mean FROM TO: sysbench's mean transactions per second over its report seconds FROM..TO.
tps_mean() {
  awk -v from="$1" -v to="$2" '$1 == "[" && $3 == "]" {
      s = $2 + 0; if (s >= from && s <= to) { for (i = 1; i <= NF; i++) if ($i == "tps:") { sum += $(i + 1); n++ } }
    } END { printf "%.0f", n ? sum / n : 0 }' "$BENCH_WORK/sysbench.txt"
}

# The second in which sysbench's report shows the fewest transactions, within S..S+WINDOW.
tps_low() {
  awk -v from="$1" -v to="$(($1 + WINDOW_S))" '$1 == "[" && $3 == "]" {
      s = $2 + 0; if (s >= from && s <= to) { for (i = 1; i <= NF; i++) if ($i == "tps:" && (low == "" || $(i + 1) < low)) low = $(i + 1) }
    } END { printf "%.0f", low == "" ? 0 : low }' "$BENCH_WORK/sysbench.txt"
}

# Sluice's answer to a switchover, on one line (it is pretty-printed).
answer() { tr -d ' \n' <"$BENCH_WORK/$1.json"; }

json_number() { answer "$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | grep -o '[0-9]*$'; }

steps_of() {
  answer "$1" | grep -o '"step":"[a-z-]*","ms":[0-9]*' | sed -E 's/"step":"([a-z-]*)","ms":([0-9]*)/\1 \2/' |
    paste -sd ',' - | sed 's/,/, /g'
}

# The cluster after both switchovers: one GTID position, replication running, equal checksums.
check_cluster() {
  "$SLUICE_ROOT/scripts/sandbox.sh" sync --dir "$SANDBOX_DIR" >&2 || { echo "replicas did not catch up"; return; }
  local k tables="" t positions checksums running problems=""
  for ((t = 1; t <= TABLES; t++)); do tables+="${tables:+, }$DATABASE.sbtest$t"; done
  positions="$(for k in 0 1 2; do sql_node "$k" 'SELECT @@gtid_current_pos'; done | sort -u | wc -l)"
  ((positions == 1)) || problems+="GTID positions differ; "
  checksums="$(for k in 0 1 2; do sql_node "$k" "CHECKSUM TABLE $tables" | awk '{ print $2 }' | paste -sd ' ' -; done | sort -u | wc -l)"
  ((checksums == 1)) || problems+="table checksums differ; "
  for k in 1 2; do
    running="$(mariadb --defaults-file="$SANDBOX_DIR/node$k/my.cnf" -e 'SHOW SLAVE STATUS\G' |
      awk '$1 ~ /^Slave_(IO|SQL)_Running:$/ { print $2 }' | paste -sd ' ' -)"
    [[ "$running" == "Yes Yes" ]] || problems+="ro$k replication: ${running:-none}; "
  done
  [[ "$(sql_node 0 'SELECT @@read_only')" == 0 ]] || problems+="the primary is read-only; "
  echo "${problems:-same GTID position, same checksums on every node, replication running}"
}

report() {
  local errors reconnects max_ms total_tps there_at back_at cluster
  errors="$(awk '/ignored errors:/ { print $3 }' "$BENCH_WORK/sysbench.txt")"
  reconnects="$(awk '/reconnects:/ { print $2 }' "$BENCH_WORK/sysbench.txt")"
  max_ms="$(awk '$1 == "max:" { print $2 }' "$BENCH_WORK/sysbench.txt")"
  total_tps="$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' "$BENCH_WORK/sysbench.txt")"
  # sysbench counts its seconds from its own start; its threads' connects make that a little late.
  there_at="$(cat "$BENCH_WORK/there.at")"
  back_at="$(cat "$BENCH_WORK/back.at")"
  cluster="$(check_cluster)"
  printf '| switchover | at (s) | writes held (ms) | steps (ms) | tps %ss before | lowest second after | tps %ss after |\n' \
    "$WINDOW_S" "$WINDOW_S"
  printf '|---|--:|--:|---|--:|--:|--:|\n'
  printf '| primary → ro1 | %s | %s | %s | %s | %s | %s |\n' "$there_at" "$(json_number there held-ms)" \
    "$(steps_of there)" "$(tps_mean $((there_at - WINDOW_S)) $((there_at - 1)))" "$(tps_low "$there_at")" \
    "$(tps_mean $((there_at + 1)) $((there_at + WINDOW_S)))"
  printf '| ro1 → primary | %s | %s | %s | %s | %s | %s |\n' "$back_at" "$(json_number back held-ms)" \
    "$(steps_of back)" "$(tps_mean $((back_at - WINDOW_S)) $((back_at - 1)))" "$(tps_low "$back_at")" \
    "$(tps_mean $((back_at + 1)) $((back_at + WINDOW_S)))"
  printf '\nsysbench oltp_read_write, %s threads, %s s: %s tps over the run; client errors %s, reconnects %s, longest transaction %s ms.\n' \
    "$THREADS" "$RUN_SECONDS" "${total_tps:-?}" "${errors:-?}" "${reconnects:-?}" "${max_ms:-?}"
  printf 'Afterwards: %s.\n' "$cluster"
  [[ "${errors:-x}" == 0 && "${reconnects:-x}" == 0 && "$cluster" == same* ]]
}

main() {
  parse_options "$@"
  require_bin sysbench >/dev/null
  require_bin curl >/dev/null
  bench_begin switchover-under-load
  prepare
  start_sluice
  run_load
  local status=0 out
  out="$(report)" || status=$?
  printf '%s\n' "$out"
  if [[ -n "$REPORT" ]]; then
    printf '\n%s\n' "$out" >>"$REPORT"
  fi
  return "$status"
}

main "$@"
