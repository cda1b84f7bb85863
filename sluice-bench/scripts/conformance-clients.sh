#!/usr/bin/env bash
# conformance-clients (BEHAVIOUR §5): does every client library get what its endpoint
# promises? Runs the read-your-writes client of each library (sluice-bench/conformance/clients,
# and dev.sluice.bench.conformance.RywClient for the two JDBC drivers) through Sluice:
#
# - `session` endpoint: write-then-read pairs on one connection; counts stale reads and the reads
#   that replicas answered;
# - `global` endpoint: the write on one connection, the read on another; counts stale reads;
# - the consistency token: one library writes through the `session` endpoint and hands
#   `SELECT sluice_last_gtid()` to the next library, which reads with /*CONSISTENT_WITH=<gtid>*/
#   through the `eventual` endpoint, around the ring of libraries;
# - a control: the session loop through the `eventual` endpoint, where stale reads may show; it
#   shows the check can see them (its figures break no promise).
#
#   sluice-bench/scripts/conformance-clients.sh [OPTIONS]
#
# It starts what it needs (a sandbox unless one is running there, a Sluice from the built jar)
# and stops what it started. Exit status: 0 every promise kept; 1 a stale read through `session`
# or `global`, a stale or tokenless handoff, or an error; 2 bad command line.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"
# shellcheck source=sluice-bench/scripts/conformance-common.sh
source "$SCRIPT_DIR/conformance-common.sh"

readonly CLIENTS_DIR="$CONFORMANCE_DIR/clients"
readonly JAVA_CLIENT=dev.sluice.bench.conformance.RywClient
readonly ALL_LIBRARIES=php-mysqli,pymysql,go-mysql,node-mysql2,mysql-connector-j,mariadb-connector-j
readonly USER_NAME=app
readonly USER_PASSWORD=app
readonly DATABASE=conformance
readonly ENDPOINTS_USED=eventual,session,global
readonly DEFAULT_PAIRS=10000
readonly DEFAULT_CONTROL_PAIRS=1000
readonly DEFAULT_HANDOFFS=1000
# Debian's Go driver source, built with no module download (GOPATH mode).
readonly GO_PATH=/usr/share/gocode

LIBRARIES="$ALL_LIBRARIES"
PAIRS=$DEFAULT_PAIRS
CONTROL_PAIRS=$DEFAULT_CONTROL_PAIRS
HANDOFFS=$DEFAULT_HANDOFFS
REPORT=""
RESULTS_DIR="$SLUICE_ROOT/sluice-bench/target/conformance-clients"
BROKEN=()

usage() {
  cat <<EOF
Usage: sluice-bench/scripts/conformance-clients.sh [OPTIONS]

Options:
$(conformance_common_usage)
  --libraries LIST     some of $ALL_LIBRARIES (default: all)
  --pairs N            write-then-read pairs per library through session and global (default $DEFAULT_PAIRS)
  --control-pairs N    pairs of the control through eventual (default $DEFAULT_CONTROL_PAIRS; 0: none)
  --handoffs N         token handoffs per pair of libraries (default $DEFAULT_HANDOFFS; 0: none)
  --results DIR        result lines and summary.md (default sluice-bench/target/conformance-clients)
EOF
}

parse_options() {
  while (($#)); do
    if conformance_common_option "$@"; then
      shift "$COMMON_SHIFT"
      continue
    fi
    case "$1" in
      --libraries) LIBRARIES="${2:?}"; shift 2 ;;
      --pairs) PAIRS="${2:?}"; shift 2 ;;
      --control-pairs) CONTROL_PAIRS="${2:?}"; shift 2 ;;
      --handoffs) HANDOFFS="${2:?}"; shift 2 ;;
      --results) RESULTS_DIR="$(realpath -m -- "${2:?}")"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; echo "error: unknown option '$1'" >&2; exit 2 ;;
    esac
  done
  [[ "$PAIRS" =~ ^[0-9]+$ && "$CONTROL_PAIRS" =~ ^[0-9]+$ && "$HANDOFFS" =~ ^[0-9]+$ ]] ||
    { echo "error: --pairs, --control-pairs and --handoffs take numbers" >&2; exit 2; }
}

# ---------------------------------------------------------------------------------------
# The clients

check_clients() {
  local lib
  for lib in ${LIBRARIES//,/ }; do
    case "$lib" in
      php-mysqli) php -r 'exit(extension_loaded("mysqli") ? 0 : 1);' 2>/dev/null ;;
      pymysql) /usr/bin/python3 -c 'import pymysql' 2>/dev/null ;;
      go-mysql) command -v go >/dev/null && [[ -d "$GO_PATH/src/github.com/go-sql-driver/mysql" ]] ;;
      node-mysql2) command -v node >/dev/null && [[ -d "$CLIENTS_DIR/node/node_modules/mysql2" ]] ;;
      mysql-connector-j | mariadb-connector-j) command -v java >/dev/null ;;
      *) die "unknown library '$lib' (expected some of $ALL_LIBRARIES)" ;;
    esac || die "the $lib client is not installed; run: scripts/install-deps.sh clients"
  done
}

build_clients() {
  if [[ ",$LIBRARIES," == *,go-mysql,* ]]; then
    info "Building the Go client (GOPATH $GO_PATH, no module download)"
    (cd "$CLIENTS_DIR/go" && GOPATH="$GO_PATH" GO111MODULE=off GOFLAGS= GOCACHE="$BENCH_WORK/go-cache" \
      go build -o "$BENCH_WORK/ryw-go" ryw.go) || die "building the Go client failed"
  fi
  if [[ ",$LIBRARIES," == *-connector-j,* ]]; then
    build_bench_if_needed
  fi
}

# run_client LIB MODE PORT KEY COUNT RESULT_FILE: one run of LIB's client; stdin and stdout are
# the caller's (the token modes talk through them).
run_client() {
  local lib="$1" mode="$2" port="$3" key="$4" count="$5" result="$6"
  local -a common=("$mode" 127.0.0.1 "$port" "$USER_NAME" "$USER_PASSWORD" "$DATABASE" "$key" "$count" "$result")
  case "$lib" in
    php-mysqli) php "$CLIENTS_DIR/php/ryw.php" "${common[@]}" ;;
    pymysql) /usr/bin/python3 "$CLIENTS_DIR/python/ryw.py" "${common[@]}" ;;
    go-mysql) "$BENCH_WORK/ryw-go" "${common[@]}" ;;
    node-mysql2) node "$CLIENTS_DIR/node/ryw.js" "${common[@]}" ;;
    mysql-connector-j | mariadb-connector-j)
      local scheme=mysql
      [[ "$lib" == mysql-connector-j ]] || scheme=mariadb
      # shellcheck disable=SC2086 # CLIENT_JAVA_OPTS is a list of JVM options
      java ${CLIENT_JAVA_OPTS:-} -cp "$BENCH_JAR" "$JAVA_CLIENT" "$mode" \
        "jdbc:$scheme://127.0.0.1:$port/$DATABASE" "$USER_NAME" "$USER_PASSWORD" "$key" "$count" "$result"
      ;;
  esac
}

# ---------------------------------------------------------------------------------------
# The table and the figures

primary_sql() { mariadb --no-defaults -h127.0.0.1 -P"$BASE_PORT" -u"$USER_NAME" -p"$USER_PASSWORD" -N -B -e "$1"; }

prepare_schema() {
  primary_sql "CREATE DATABASE IF NOT EXISTS $DATABASE;
    CREATE TABLE IF NOT EXISTS $DATABASE.ryw (k VARCHAR(64) PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB" ||
    die "could not create $DATABASE.ryw on the primary"
  PRIMARY_SERVER_ID="$(primary_sql 'SELECT @@server_id')"
}

# fresh_row KEY: the row KEY at v = 0, applied on every replica before the run starts.
fresh_row() {
  primary_sql "REPLACE INTO $DATABASE.ryw VALUES ('$1', 0)"
  "$SLUICE_ROOT/scripts/sandbox.sh" sync --dir "$SANDBOX_DIR" >/dev/null 2>&1 ||
    warn "the replicas did not catch up before the run of $1"
}

# field RESULT_FILE NAME: one value of a result line.
field() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1"; }

# replica_share RESULT_FILE: the percentage of reads answered by another server than the primary.
replica_share() {
  field "$1" servers | tr ',' '\n' | awk -F: -v primary="$PRIMARY_SERVER_ID" '
    NF == 2 { total += $2; if ($1 != primary) replicas += $2 }
    END { if (total) printf "%.1f %%", 100 * replicas / total; else printf "-" }'
}

# record ROW_LABEL RESULT_FILE PROMISED: one table row; a promised check with a stale read, an
# error, a missing token or a short count breaks a promise.
record() {
  local label="$1" result="$2" promised="$3" expected="$4" reads stale errors no_token verdict=kept
  if [[ ! -s "$result" ]]; then
    printf '| %s | (no result: the client failed) | | | | | broken |\n' "$label" >>"$RESULTS_DIR/table.md"
    BROKEN+=("$label")
    return
  fi
  reads="$(field "$result" reads)" stale="$(field "$result" stale)"
  errors="$(field "$result" errors)" no_token="$(field "$result" no_token)"
  if ((promised)) && ((stale > 0 || errors > 0 || no_token > 0 || reads < expected)); then
    verdict=BROKEN
    BROKEN+=("$label")
  fi
  ((promised)) || verdict="control"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$reads" "$stale" "$(replica_share "$result")" \
    "$errors" "$no_token" "$verdict" >>"$RESULTS_DIR/table.md"
  note "$label: $(cat "$result")"
}

# pairs LIB KIND MODE COUNT PROMISED: a write-then-read loop of LIB through KIND's endpoint.
pairs() {
  local lib="$1" kind="$2" mode="$3" count="$4" promised="$5" key result
  key="$lib-$kind-$mode"
  result="$RESULTS_DIR/$key.result"
  rm -f "$result"
  fresh_row "$key"
  info "$lib: $count pairs ($mode) through $kind"
  run_client "$lib" "$mode" "$(endpoint_port "$kind")" "$key" "$count" "$result" </dev/null >/dev/null ||
    warn "$lib's client ended with an error ($kind, $mode)"
  record "$lib, \`$kind\`, $mode" "$result" "$promised" "$count"
}

# handoff WRITER READER: WRITER's tokens, through `session`, read by READER through `eventual`,
# in lockstep: every read follows its write at once.
handoff() {
  local writer="$1" reader="$2" key result w2r="$BENCH_WORK/w2r" r2w="$BENCH_WORK/r2w" reader_pid status=0
  key="token-$writer-$reader"
  result="$RESULTS_DIR/$key.result"
  rm -f "$result" "$w2r" "$r2w"
  mkfifo "$w2r" "$r2w"
  fresh_row "$key"
  info "token: $writer -> $reader, $HANDOFFS handoffs"
  # Opening a FIFO waits for its other end: the reader opens r2w first, the writer opens r2w
  # first too, so the two opens meet; then both open w2r.
  run_client "$reader" token-read "$(endpoint_port eventual)" "$key" 0 "$result" >"$r2w" <"$w2r" &
  reader_pid=$!
  run_client "$writer" token-write "$(endpoint_port session)" "$key" "$HANDOFFS" "$BENCH_WORK/$key.writer" <"$r2w" >"$w2r" ||
    status=$?
  wait "$reader_pid" || status=$?
  ((status == 0)) || warn "token handoff $writer -> $reader ended with an error"
  # The reader counts the reads it made without a token; the writer's errors count too.
  record "token $writer → $reader" "$result" 1 "$HANDOFFS"
  if [[ ! -s "$BENCH_WORK/$key.writer" ]] || (($(field "$BENCH_WORK/$key.writer" errors) > 0)); then
    warn "the writer $writer failed in the handoff to $reader: $(cat "$BENCH_WORK/$key.writer" 2>/dev/null)"
    BROKEN+=("token $writer → $reader (writer)")
  fi
}

write_summary() {
  {
    echo "## Read-your-writes by client library ($(date -u '+%F %H:%M UTC'), $(git -C "$SLUICE_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "Sluice endpoints over 1 primary (read weight 0) + 2 replicas; $PAIRS pairs per library and level,"
    echo "$CONTROL_PAIRS pairs of control through \`eventual\`, $HANDOFFS token handoffs per pair of libraries."
    echo
    echo "| run | reads | stale | on replicas | errors | no token | promise |"
    echo "|---|--:|--:|--:|--:|--:|---|"
    cat "$RESULTS_DIR/table.md"
  } >"$RESULTS_DIR/summary.md"
  info "Summary: $RESULTS_DIR/summary.md"
  cat "$RESULTS_DIR/summary.md" >&2
}

# ---------------------------------------------------------------------------------------

main() {
  local lib k
  local -a libs
  parse_options "$@"
  read -r -a libs <<<"${LIBRARIES//,/ }"
  check_clients
  mkdir -p "$RESULTS_DIR"
  : >"$RESULTS_DIR/table.md"
  bench_begin conformance-clients "$RESULTS_DIR"
  build_clients
  bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" "$REPLICAS"
  prepare_schema
  start_conformance_sluice "$ENDPOINTS_USED"
  for lib in "${libs[@]}"; do
    pairs "$lib" session session "$PAIRS" 1
    pairs "$lib" global global "$PAIRS" 1
    ((CONTROL_PAIRS == 0)) || pairs "$lib" eventual session "$CONTROL_PAIRS" 0
  done
  if ((HANDOFFS > 0 && ${#libs[@]} > 1)); then
    for ((k = 0; k < ${#libs[@]}; k++)); do
      handoff "${libs[k]}" "${libs[(k + 1) % ${#libs[@]}]}"
    done
  fi
  write_summary
  if ((${#BROKEN[@]} > 0)); then
    warn "promises broken: ${BROKEN[*]}"
    return 1
  fi
  info "every promise kept"
}

main "$@"
