#!/usr/bin/env bash
# consistency-check: do Sluice's consistency levels keep their promises, and
# what do they cost? Runs dev.sluice.bench.consistency.ConsistencyCheck from the benchmarks jar.
#
#   sluice-bench/scripts/consistency-check.sh [LAUNCHER OPTIONS] [--] [CHECKER OPTIONS]
#
# By default it sets everything up itself: a sandbox (1 primary + 2 replicas) and a Sluice with
# three read-write endpoints identical but for `consistency` (eventual, session, global; primary
# read weight 0), runs the checker against them with the replicas known (so --slow-replicas works),
# then stops Sluice and, unless it was already running, the sandbox. With --no-setup it only
# launches the checker: give it the URLs yourself.
#
# Benchmarks are not tests: run it by hand; --report docs/PERFORMANCE.md writes its section.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"

readonly MAIN_CLASS=dev.sluice.bench.consistency.ConsistencyCheck
# Ports apart from the demo (3311.., 6033..) and the sysbench comparison (3331.., 6401..).
SANDBOX_DIR="$SLUICE_ROOT/.sandbox/consistency"
BASE_PORT=3351
PROXY_BASE_PORT=6351
URL_PARAMS=""
SLUICE_JAR_OVERRIDE=""
CONSISTENCY_TIMEOUT=""
SETUP=1
CHECKER_ARGS=()

usage() {
  cat <<EOF
Usage: sluice-bench/scripts/consistency-check.sh [LAUNCHER OPTIONS] [--] [CHECKER OPTIONS]

Launcher options:
  --sandbox-dir D       the sandbox to use, started if needed (default .sandbox/consistency)
  --base-port P         its primary's port; replicas on P+1, P+2 (default $BASE_PORT)
  --proxy-base-port P   Sluice's endpoints: eventual P, session P+1, global P+2; admin P+8
                        (default $PROXY_BASE_PORT)
  --url-params S        appended to every generated JDBC URL, e.g. '?sessionVariables=...'
  --consistency-timeout D
                        the endpoints' consistency-timeout (default: Sluice's, 10ms)
  --sluice-jar FILE     run this Sluice jar (default: sluice-server/target/sluice.jar, rebuilt
                        when older than its sources)
  --no-setup            start nothing: run the checker with the given options only

Checker options (see --help of the checker): --mode, --sessions, --duration, --slow-replicas,
--report FILE, --label, --append, ... Generated URLs come first; options given here win.

Environment: SLUICE_JAVA_OPTS for Sluice's JVM, CHECK_JAVA_OPTS for the checker's.
EOF
}

parse_options() {
  while (($#)); do
    case "$1" in
      --sandbox-dir) SANDBOX_DIR="${2:?}"; shift 2 ;;
      --base-port) BASE_PORT="${2:?}"; shift 2 ;;
      --proxy-base-port) PROXY_BASE_PORT="${2:?}"; shift 2 ;;
      --url-params) URL_PARAMS="${2?}"; shift 2 ;;
      --sluice-jar) SLUICE_JAR_OVERRIDE="${2:?}"; shift 2 ;;
      --consistency-timeout) CONSISTENCY_TIMEOUT="${2:?}"; shift 2 ;;
      --no-setup) SETUP=0; shift ;;
      -h | --help) usage; exit 0 ;;
      --) shift; CHECKER_ARGS+=("$@"); break ;;
      *) CHECKER_ARGS+=("$1"); shift ;;
    esac
  done
  [[ "$BASE_PORT" =~ ^[0-9]+$ && "$PROXY_BASE_PORT" =~ ^[0-9]+$ ]] ||
    die "--base-port and --proxy-base-port take port numbers"
}

write_sluice_config() {
  local level port=$PROXY_BASE_PORT timeout=""
  [[ -z "$CONSISTENCY_TIMEOUT" ]] || timeout=", consistency-timeout: $CONSISTENCY_TIMEOUT"
  {
    echo "# consistency-check: one read-write endpoint per level, identical but for consistency."
    bench_cluster_yaml "$BASE_PORT" 2
    echo "endpoints:"
    for level in eventual session global; do
      echo "  - {name: $level, listen: 127.0.0.1:$port, mode: read-write, nodes: [primary, ro1, ro2],"
      echo "     weights: {primary: 0, ro1: 100, ro2: 100}, consistency: $level$timeout}"
      port=$((port + 1))
    done
    bench_admin_yaml $((PROXY_BASE_PORT + 8))
  } >"$BENCH_WORK/sluice.yaml"
}

start_sluice() {
  write_sluice_config
  info "Starting Sluice (endpoints $PROXY_BASE_PORT-$((PROXY_BASE_PORT + 2)))"
  bench_sluice_start "$SLUICE_JAR_OVERRIDE" "$BENCH_WORK/sluice.yaml" "$BENCH_WORK/sluice.log" "$PROXY_BASE_PORT" \
    $((PROXY_BASE_PORT + 1)) $((PROXY_BASE_PORT + 2))
}

# shell_words ARG...: the arguments as one shell-readable line, quoted only where needed.
shell_words() {
  local arg out=""
  for arg in "$@"; do
    if [[ "$arg" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
      out+=" $arg"
    else
      out+=" '${arg//\'/\'\\\'\'}'"
    fi
  done
  printf '%s' "$out"
}

url() { printf 'jdbc:mariadb://127.0.0.1:%s/test%s' "$1" "${2-}"; }

main() {
  parse_options "$@"
  build_bench_if_needed
  local -a args=()
  if ((SETUP)); then
    bench_begin consistency
    bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" 2
    start_sluice
    args=(--url-eventual "$(url "$PROXY_BASE_PORT" "$URL_PARAMS")"
      --url-session "$(url $((PROXY_BASE_PORT + 1)) "$URL_PARAMS")"
      --url-global "$(url $((PROXY_BASE_PORT + 2)) "$URL_PARAMS")"
      --direct-primary "$(url "$BASE_PORT")"
      --replica "$(url $((BASE_PORT + 1))),$(url $((BASE_PORT + 2)))"
      --sluice-config "$BENCH_WORK/sluice.yaml"
      --sluice-metrics "http://127.0.0.1:$((PROXY_BASE_PORT + 8))/metrics")
  fi
  local status=0
  # shellcheck disable=SC2086 # CHECK_JAVA_OPTS is a list of JVM options
  CONSISTENCY_CHECK_COMMAND="sluice-bench/scripts/consistency-check.sh$(shell_words "$@")" \
    java ${CHECK_JAVA_OPTS:-} -cp "$BENCH_JAR" "$MAIN_CLASS" "${args[@]}" "${CHECKER_ARGS[@]}" || status=$?
  return "$status"
}

main "$@"
