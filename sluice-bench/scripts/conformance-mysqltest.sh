#!/usr/bin/env bash
# conformance-mysqltest (BEHAVIOUR §3): does a client see the same answers through Sluice as
# straight from the server? Runs cases of MariaDB's own mysql-test suite (Debian `mariadb-test`)
# with mariadb-test-run --extern, directly against the sandbox's primary and then through each
# kind of Sluice endpoint, and compares them case by case.
#
#   sluice-bench/scripts/conformance-mysqltest.sh [compare] [OPTIONS]   # the comparison
#   sluice-bench/scripts/conformance-mysqltest.sh select [OPTIONS]      # choose the case list
#
# It starts what it needs (a sandbox on its own ports unless one is running there, a Sluice from
# the built jar with a generated configuration), gives every node mtr's own server defaults for
# the run (restored afterwards), and stops what it started. Not part of ./sluice test: the suite
# takes minutes per endpoint. Exit status: 0 every case that passed directly passed through every
# endpoint (or differs for a reason listed in sluice-bench/conformance/mysqltest-inherent.txt) and
# replication is intact after every run; 1 otherwise; 2 bad command line.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"
# shellcheck source=sluice-bench/scripts/conformance-common.sh
source "$SCRIPT_DIR/conformance-common.sh"
# shellcheck source=sluice-bench/scripts/conformance-mysqltest-nodes.sh
source "$SCRIPT_DIR/conformance-mysqltest-nodes.sh"

readonly MTR_DIR=/usr/share/mysql/mysql-test
readonly CHARSETS_DIR=/usr/share/mysql/charsets
readonly MYSQLTEST_BIN=/usr/bin/mariadb-test
readonly RESET_WRAPPER="$CONFORMANCE_DIR/mysqltest-reset.sh"
readonly DEFAULT_CASES="$CONFORMANCE_DIR/mysqltest-cases.txt"
readonly INHERENT_LIST="$CONFORMANCE_DIR/mysqltest-inherent.txt"
readonly SUITE=main
# The suite's cases connect as root without a password (`connect (con1,localhost,root,,)`); over
# TCP from 127.0.0.1 that is root@127.0.0.1, made for the run with every privilege but READ_ONLY
# ADMIN, so a write sent to a replica fails there as an application's would.
readonly SUITE_USER=root
readonly SUITE_HOST=127.0.0.1
readonly CASE_TIMEOUT_S=300
# mariadb-test's exit status for a case that skipped itself (a missing feature).
readonly MYSQLTEST_SKIPPED=62
readonly DIFF_EXCERPT_LINES=12
readonly FAIL_OUTPUT_MAX_BYTES=20000
readonly PROGRESS_EVERY=50
# When choosing cases, a case slower than this directly is left out: it would cost minutes
# across the five runs of a comparison for one case.
readonly DEFAULT_MAX_CASE_SECONDS=20
# Cases that change replication itself, restart or kill the server, or rely on its binary log
# being its own: a replicated sandbox cannot run them as a lone test server does. Nor one that
# empties the account table: should it fail before refilling it (main.bad_user_table does, its
# login over TCP answering a TLS error instead of the one it expects), root is gone on every node
# and neither the reset nor any later case can log in.
readonly UNSAFE_CASE_PATTERN='truncate table mysql\.global_priv|reset master|change master|start slave|stop slave|sql_log_bin|gtid_slave_pos|gtid_binlog_state|gtid_domain_id|purge (binary|master) logs|restart_mysqld|kill_mysqld|shutdown_mysqld|start_mysqld|crash_mysqld|shutdown_server|rpl_|\bSHUTDOWN\b|server_id'

COMMAND=compare
CASES_FILE="$DEFAULT_CASES"
LIMIT=0
STOP_AFTER_PASSES=0
SHARD=1/1
EXCLUDE_FILE=""
APPEND=0
MAX_CASE_SECONDS=$DEFAULT_MAX_CASE_SECONDS
ENDPOINTS="$ALL_ENDPOINT_KINDS"
RESULTS_DIR="$SLUICE_ROOT/sluice-bench/target/conformance-mysqltest"

usage() {
  cat <<EOF
Usage: sluice-bench/scripts/conformance-mysqltest.sh [compare|select] [OPTIONS]

  compare   (default) run the case list directly against the primary, then through each
            endpoint kind, and compare case by case
  select    run every case of the '$SUITE' suite directly (less those that change replication
            or restart the server) and write those that pass, with replication intact after
            them, to the case list

Options:
$(conformance_common_usage)
  --cases FILE         the case list (default sluice-bench/conformance/mysqltest-cases.txt)
  --limit N            only the first N cases of the list (a quick look)
  --max-pass N         select: stop once N cases passed (default: run every case)
  --shard K/N          select: only every N-th case from the K-th (run shards on separate
                       sandboxes at once, then concatenate and sort their lists)
  --exclude FILE       select: do not run the cases listed in FILE (e.g. those an earlier,
                       interrupted selection tried already)
  --append             select: add the cases that pass to the list instead of replacing it
  --max-case-seconds S select: leave out cases that take longer than S directly (default $DEFAULT_MAX_CASE_SECONDS)
  --endpoints LIST     endpoint kinds to compare (default $ALL_ENDPOINT_KINDS)
  --results DIR        logs, diffs and summary.md (default sluice-bench/target/conformance-mysqltest)
EOF
}

parse_options() {
  if (($#)) && [[ "$1" != -* ]]; then
    COMMAND="$1"
    shift
  fi
  [[ "$COMMAND" == compare || "$COMMAND" == select ]] || { usage >&2; exit 2; }
  while (($#)); do
    if conformance_common_option "$@"; then
      shift "$COMMON_SHIFT"
      continue
    fi
    case "$1" in
      --cases) CASES_FILE="$(realpath -m -- "${2:?}")"; shift 2 ;;
      --limit) LIMIT="${2:?}"; shift 2 ;;
      --max-pass) STOP_AFTER_PASSES="${2:?}"; shift 2 ;;
      --shard) SHARD="${2:?}"; shift 2 ;;
      --exclude) EXCLUDE_FILE="$(realpath -- "${2:?}")"; shift 2 ;;
      --append) APPEND=1; shift ;;
      --max-case-seconds) MAX_CASE_SECONDS="${2:?}"; shift 2 ;;
      --endpoints) ENDPOINTS="${2:?}"; shift 2 ;;
      --results) RESULTS_DIR="$(realpath -m -- "${2:?}")"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; echo "error: unknown option '$1'" >&2; exit 2 ;;
    esac
  done
  [[ "$SHARD" =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]] || { echo "error: --shard takes K/N, e.g. 1/2" >&2; exit 2; }
  [[ "$LIMIT" =~ ^[0-9]+$ && "$STOP_AFTER_PASSES" =~ ^[0-9]+$ && "$MAX_CASE_SECONDS" =~ ^[0-9]+$ ]] ||
    { echo "error: --limit, --max-pass and --max-case-seconds take numbers" >&2; exit 2; }
}

# ---------------------------------------------------------------------------------------
# Runs of the suite

# run_suite LABEL PORT REPAIR CASE...: runs the cases against 127.0.0.1:PORT; writes
# RESULTS_DIR/LABEL/{status.tsv,replication.txt} and, per failed case, fail/CASE.txt (what
# mariadb-test said and the diff of its result against the recorded one).
run_suite() {
  local label="$1" port="$2" repair="$3" out var c status n=0 started ms
  shift 3
  out="$RESULTS_DIR/$label"
  var="$BENCH_WORK/var-$label"
  rm -rf "$out" "$var"
  mkdir -p "$out/state" "$out/fail" "$var/tmp" "$var/log"
  info "mysql-test: $# cases through $label (127.0.0.1:$port); results in $out"
  : >"$out/status.tsv"
  local passed_count=0
  for c in "$@"; do
    started="$EPOCHREALTIME"
    status="$(CONFORMANCE_STATE_DIR="$out/state" CONFORMANCE_REPAIR="$repair" run_case "$c" "$port" "$var" "$out/fail")"
    ms="$(elapsed_ms "$started")"
    printf '%s\t%s\t%s\n' "$c" "$status" "$ms" >>"$out/status.tsv"
    if [[ "$status" == pass ]] && ((++passed_count == STOP_AFTER_PASSES)); then
      note "$label: $STOP_AFTER_PASSES cases passed; stopping here (--max-pass)"
      break
    fi
    if ((++n % PROGRESS_EVERY == 0)); then
      note "$label: $n/$# ($(awk -F'\t' '$2 == "pass"' "$out/status.tsv" | wc -l) passed)"
    fi
  done
  if replication_intact "$SANDBOX_DIR" >"$out/replication.txt"; then
    note "replication after $label: $(tr '\n' ';' <"$out/replication.txt")"
  else
    warn "replication after $label is BROKEN:"
    sed 's/^/    /' "$out/replication.txt" >&2
    REPLICATION_BROKEN+=("$label")
  fi
  [[ ! -s "$out/state/replication-breaks" ]] ||
    warn "replicas stopped after these cases ($label): $(cut -f1 "$out/state/replication-breaks" | sort -u | tr '\n' ' ')"
}

# elapsed_ms START: milliseconds since START (an $EPOCHREALTIME).
elapsed_ms() {
  local now="$EPOCHREALTIME"
  echo $(((${now/./} - ${1/./}) / 1000))
}

# run_case CASE PORT VARDIR FAILDIR: prints pass, fail or skipped.
run_case() {
  local c="$1" port="$2" var="$3" faildir="$4" name rc=0 result
  name="${c#"$SUITE".}"
  # A copy of the recorded result, so the .reject that mariadb-test writes beside it lands in
  # the run's own directory, not in the installed suite.
  mkdir -p "$var/result"
  result="$var/result/$name.result"
  cp "$MTR_DIR/$SUITE/$name.result" "$result"
  rm -f "$var/result/$name.reject"
  # mtr's environment for the variables cases use ($MYSQL, $MYSQLTEST_VARDIR, ...).
  (cd "$MTR_DIR" && MYSQL_TEST_DIR="$MTR_DIR" MYSQLTEST_VARDIR="$var" MYSQL_TMP_DIR="$var/tmp" \
    MYSQL_CHARSETSDIR="$CHARSETS_DIR" MASTER_MYPORT="$port" MASTER_MYSOCK="$var/no-socket" \
    MYSQL="mariadb --no-defaults --host=127.0.0.1 --port=$port --user=$SUITE_USER --protocol=tcp" \
    MYSQL_DUMP="mariadb-dump --no-defaults --host=127.0.0.1 --port=$port --user=$SUITE_USER --protocol=tcp" \
    MYSQLADMIN="mariadb-admin --no-defaults --host=127.0.0.1 --port=$port --user=$SUITE_USER --protocol=tcp" \
    timeout "$CASE_TIMEOUT_S" "$RESET_WRAPPER" --no-defaults --host=127.0.0.1 --port="$port" --user="$SUITE_USER" \
    --protocol=tcp --silent --database=test --tmpdir="$var/tmp" --logdir="$var/log" \
    --character-sets-dir="$CHARSETS_DIR" --suite-dir="$MTR_DIR/$SUITE/" \
    --test-file="$MTR_DIR/$SUITE/$name.test" --result-file="$result" \
    --wait-for-pos-timeout=300 >"$var/log/$name.out" 2>&1) || rc=$?
  case "$rc" in
    0) echo pass ;;
    "$MYSQLTEST_SKIPPED") echo skipped ;;
    *)
      echo fail
      {
        [[ "$rc" != 124 ]] || echo "(timed out after ${CASE_TIMEOUT_S}s)"
        head -c "$FAIL_OUTPUT_MAX_BYTES" "$var/log/$name.out"
        if [[ -f "$var/result/$name.reject" ]]; then
          # diff ends 1 on a difference, and head may close the pipe early; neither is a failure here.
          diff -u "$result" "$var/result/$name.reject" | head -c "$FAIL_OUTPUT_MAX_BYTES" || true
        fi
      } >"$faildir/$c.txt"
      ;;
  esac
}

status_of() { awk -F'\t' -v c="$2" '$1 == c { s = $2 } END { print s ? s : "missing" }' "$RESULTS_DIR/$1/status.tsv"; }

# ---------------------------------------------------------------------------------------
# select

# Every case of the suite that a lone external server can run: not one that changes replication
# or restarts the server, nor one with server options or a configuration of its own (.opt,
# .cnf, .combinations, .sh files: mariadb-test-run would restart the server for those).
all_suite_cases() {
  local file name
  local -A unsafe=()
  while IFS= read -r file; do unsafe["$file"]=1; done < <(grep -liE "$UNSAFE_CASE_PATTERN" "$MTR_DIR/$SUITE"/*.test)
  for file in "$MTR_DIR/$SUITE"/*.test; do
    name="${file%.test}"
    [[ -z "${unsafe[$file]:-}" ]] || continue
    compgen -G "$name.opt" >/dev/null || compgen -G "$name-master.opt" >/dev/null ||
      compgen -G "$name.cnf" >/dev/null || compgen -G "$name.combinations" >/dev/null ||
      compgen -G "$name-master.sh" >/dev/null || [[ ! -f "$name.result" ]] && continue
    printf '%s.%s\n' "$SUITE" "${name##*/}"
  done
}

cmd_select() {
  local -a cases
  # A fixed shuffle, so that stopping after --max-pass passes still samples the whole suite.
  mapfile -t cases < <(all_suite_cases | shuf --random-source=<(yes sluice) |
    awk -v k="${SHARD%/*}" -v n="${SHARD#*/}" '(NR - 1) % n == k - 1' |
    if [[ -n "$EXCLUDE_FILE" ]]; then grep -vxF -f <(grep -v '^#' "$EXCLUDE_FILE"); else cat; fi)
  ((LIMIT == 0)) || cases=("${cases[@]:0:LIMIT}")
  run_suite direct "$BASE_PORT" 1 "${cases[@]}"
  local breaks="$BENCH_WORK/left-out" earlier=""
  # Left out: cases after which a replica stopped, or lagged past the reset's wait.
  cat "$RESULTS_DIR/direct/state/replication-"{breaks,lags} 2>/dev/null >"$breaks" || true
  if ((APPEND)) && [[ -f "$CASES_FILE" ]]; then earlier="$(grep -v '^#' "$CASES_FILE" || true)"; fi
  {
    echo "# mysql-test cases of the '$SUITE' suite that pass directly against the conformance sandbox"
    echo "# (mtr's server defaults, account $SUITE_USER@$SUITE_HOST), in at most ${MAX_CASE_SECONDS}s, and leave replication"
    echo "# intact (no replica stopped or lagging after them)."
    echo "# Written by: sluice-bench/scripts/conformance-mysqltest.sh select ($(date -u +%F))"
    { awk -F'\t' -v max="$((MAX_CASE_SECONDS * 1000))" '$2 == "pass" && $3 <= max { print $1 }' "$RESULTS_DIR/direct/status.tsv"
      [[ -z "$earlier" ]] || printf '%s\n' "$earlier"; } | sort -u |
      { if [[ -s "$breaks" ]]; then grep -vxF -f <(cut -f1 "$breaks" | sed "s/^/$SUITE./"); else cat; fi; }
  } >"$CASES_FILE"
  info "$(grep -vc '^#' "$CASES_FILE") of ${#cases[@]} cases pass directly: written to $CASES_FILE"
  ((${#REPLICATION_BROKEN[@]} == 0))
}

# ---------------------------------------------------------------------------------------
# compare

read_cases() {
  [[ -f "$CASES_FILE" ]] || die "no case list at $CASES_FILE; make one with: $0 select"
  mapfile -t CASES < <(grep -v '^#' "$CASES_FILE" | grep -v '^$')
  ((LIMIT == 0)) || CASES=("${CASES[@]:0:LIMIT}")
  ((${#CASES[@]} > 0)) || die "the case list $CASES_FILE is empty"
}

# inherent_reason CASE KIND: the documented reason CASE may differ through KIND, or nothing.
inherent_reason() {
  [[ -f "$INHERENT_LIST" ]] || return 0
  awk -F'\t' -v c="$1" -v k="$2" '!/^#/ && $1 == c && ($2 == "*" || index("," $2 ",", "," k ",")) { print $3; exit }' "$INHERENT_LIST"
}

# diff_excerpt LABEL CASE: the first lines that show how a failed case differed.
diff_excerpt() {
  local file="$RESULTS_DIR/$1/fail/$2.txt"
  [[ -f "$file" ]] || { echo "(no output kept)"; return; }
  grep -E '^(mysqltest:|[-+][^-+]|ERROR|[A-Za-z].*(failed|error))' "$file" | grep -vE '^(\+\+\+|---) ' |
    head -n "$DIFF_EXCERPT_LINES"
}

compare_endpoint() {
  local kind="$1" c direct through reason
  local passed=0 differ=0 explained=0 flaky=0
  {
    printf '\n### Through the `%s` endpoint\n\n' "$kind"
    for c in "${CASES[@]}"; do
      direct="$(status_of direct "$c")"
      through="$(status_of "$kind" "$c")"
      if [[ "$direct" != pass ]]; then
        ((++flaky))
        continue
      fi
      ((++passed))
      [[ "$through" == pass ]] && continue
      ((++differ))
      reason="$(inherent_reason "$c" "$kind")"
      if [[ -n "$reason" ]]; then
        ((++explained))
      else
        UNEXPLAINED+=("$kind:$c")
      fi
      printf -- '- `%s`: %s through `%s`%s\n\n```\n%s\n```\n' "$c" "$through" "$kind" \
        "${reason:+ — inherent: $reason}" "$(diff_excerpt "$kind" "$c")"
    done
  } >"$RESULTS_DIR/$kind/differences.md"
  printf '| `%s` | %d | %d | %d | %d | %d |\n' "$kind" "${#CASES[@]}" "$passed" "$((passed - differ))" \
    "$differ" "$explained" >>"$RESULTS_DIR/summary.md"
  ((flaky == 0)) || note "$kind: $flaky cases of the list did not pass directly in this run (not counted)"
  info "$kind: $passed passed directly, $differ differ through $kind ($explained on the inherent list)"
}

cmd_compare() {
  local kind
  read_cases
  run_suite direct "$BASE_PORT" 0 "${CASES[@]}"
  start_conformance_sluice "$ENDPOINTS"
  for kind in ${ENDPOINTS//,/ }; do
    run_suite "$kind" "$(endpoint_port "$kind")" 0 "${CASES[@]}"
  done
  {
    echo "## mysql-test through each endpoint kind ($(date -u '+%F %H:%M UTC'))"
    echo
    echo "$(git -C "$SLUICE_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'): ${#CASES[@]} cases of ${CASES_FILE#"$SLUICE_ROOT"/}"
    echo
    echo "| endpoint | cases | pass directly | pass through it | differ | of which inherent |"
    echo "|---|--:|--:|--:|--:|--:|"
  } >"$RESULTS_DIR/summary.md"
  for kind in ${ENDPOINTS//,/ }; do compare_endpoint "$kind"; done
  {
    echo
    echo "Replication after each run:"
    for kind in direct ${ENDPOINTS//,/ }; do sed "s/^/- $kind: /" "$RESULTS_DIR/$kind/replication.txt"; done
    for kind in ${ENDPOINTS//,/ }; do cat "$RESULTS_DIR/$kind/differences.md"; done
  } >>"$RESULTS_DIR/summary.md"
  info "Summary: $RESULTS_DIR/summary.md"
  sed -n '/^| endpoint/,/^$/p' "$RESULTS_DIR/summary.md" >&2
  if ((${#UNEXPLAINED[@]} > 0)); then
    warn "${#UNEXPLAINED[@]} differences are not on the inherent list: ${UNEXPLAINED[*]}"
  fi
  ((${#UNEXPLAINED[@]} == 0 && ${#REPLICATION_BROKEN[@]} == 0))
}

# ---------------------------------------------------------------------------------------

REPLICATION_BROKEN=()
UNEXPLAINED=()
CASES=()

# The nodes' globals the run changed go back before the sandbox stops, or is left running.
bench_after_sluice_stop() {
  restore_nodes
}

main() {
  parse_options "$@"
  [[ -d "$MTR_DIR/$SUITE" && -x "$MYSQLTEST_BIN" ]] ||
    die "MariaDB's test suite is not installed; run: scripts/install-deps.sh mysqltest"
  mkdir -p "$RESULTS_DIR"
  bench_begin conformance "$RESULTS_DIR"
  bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" "$REPLICAS"
  prepare_nodes
  write_baseline
  export_reset_environment
  case "$COMMAND" in
    select) cmd_select ;;
    compare) cmd_compare ;;
  esac
}

main "$@"
