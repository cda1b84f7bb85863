#!/usr/bin/env bash
# connect-rate: short connections (connect, one query, quit) per second, straight to the
# primary and through a Sluice endpoint with the session pool, in one run; prints both rates and
# their ratio. Runs dev.sluice.bench.connect.ConnectRate from the benchmarks jar.
#
#   sluice-bench/scripts/connect-rate.sh [LAUNCHER OPTIONS] [--] [RATE OPTIONS]
#
# By default it sets everything up itself: a sandbox (1 primary + 1 replica) and a Sluice with one
# read-write endpoint, `connection-pool: session`, its node links in plaintext like the direct
# path's (--backend-tls to change that); then stops Sluice and, unless it was already running, the
# sandbox. It also prints the CPU time Sluice and each node spent per connection. With --no-setup
# it only runs the measurement: give --direct and --sluice.
#
# Benchmarks are not tests: run it by hand, on an otherwise idle machine.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=scripts/lib.sh
source "$SCRIPT_DIR/../../scripts/lib.sh"

readonly MAIN_CLASS=dev.sluice.bench.connect.ConnectRate
# Ports apart from the demo (3311..), the sysbench comparison (3331..) and consistency-check (3351..).
SANDBOX_DIR="$SLUICE_ROOT/.sandbox/connect-rate"
BASE_PORT=3381
PROXY_PORT=6381
POOL_MAX=64
BACKEND_TLS=off
SLUICE_JAR_OVERRIDE=""
SETUP=1
RATE_ARGS=()

usage() {
  cat <<EOF
Usage: sluice-bench/scripts/connect-rate.sh [LAUNCHER OPTIONS] [--] [RATE OPTIONS]

Launcher options:
  --sandbox-dir D     the sandbox to use, started if needed (default .sandbox/connect-rate)
  --base-port P       its primary's port; the replica on P+1 (default $BASE_PORT)
  --proxy-port P      Sluice's endpoint (default $PROXY_PORT); admin on P+8
  --pool-max N        the endpoint's pool-max-connections (default $POOL_MAX)
  --backend-tls T     Sluice's node links: off (default, like the direct path) | preferred | required
  --sluice-jar FILE   run this Sluice jar (default: sluice-server/target/sluice.jar, rebuilt
                      when older than its sources)
  --no-setup          start nothing: run the measurement with the given options only

Rate options: --connections N (default 20000), --threads T (default 8), --warmup W,
--rounds R (default 3, interleaved), --query SQL, --user U, --password P; and with --no-setup,
--direct URL --sluice URL [--watch NAME=PID,...].

Environment: SLUICE_JAVA_OPTS for Sluice's JVM, RATE_JAVA_OPTS for the client's.
EOF
}

parse_options() {
  while (($#)); do
    case "$1" in
      --sandbox-dir) SANDBOX_DIR="${2:?}"; shift 2 ;;
      --base-port) BASE_PORT="${2:?}"; shift 2 ;;
      --proxy-port) PROXY_PORT="${2:?}"; shift 2 ;;
      --pool-max) POOL_MAX="${2:?}"; shift 2 ;;
      --backend-tls) BACKEND_TLS="${2:?}"; shift 2 ;;
      --sluice-jar) SLUICE_JAR_OVERRIDE="${2:?}"; shift 2 ;;
      --no-setup) SETUP=0; shift ;;
      -h | --help) usage; exit 0 ;;
      --) shift; RATE_ARGS+=("$@"); break ;;
      *) RATE_ARGS+=("$1"); shift ;;
    esac
  done
  [[ "$BASE_PORT" =~ ^[0-9]+$ && "$PROXY_PORT" =~ ^[0-9]+$ && "$POOL_MAX" =~ ^[0-9]+$ ]] ||
    die "--base-port, --proxy-port and --pool-max take numbers"
  [[ "$BACKEND_TLS" =~ ^(off|preferred|required)$ ]] || die "--backend-tls takes off, preferred or required"
}

start_sluice() {
  {
    echo "# connect-rate: one read-write endpoint with the session pool."
    bench_cluster_yaml "$BASE_PORT" 1 "tls: $BACKEND_TLS"
    cat <<YAML
endpoints:
  - {name: pooled, listen: 127.0.0.1:$PROXY_PORT, mode: read-write, connection-pool: session,
     pool-max-connections: $POOL_MAX}
YAML
    bench_admin_yaml $((PROXY_PORT + 8))
  } >"$BENCH_WORK/sluice.yaml"
  info "Starting Sluice (endpoint $PROXY_PORT, connection-pool: session, pool-max-connections: $POOL_MAX, node links tls: $BACKEND_TLS)"
  bench_sluice_start "$SLUICE_JAR_OVERRIDE" "$BENCH_WORK/sluice.yaml" "$BENCH_WORK/sluice.log" "$PROXY_PORT"
}

main() {
  parse_options "$@"
  build_bench_if_needed
  local -a args=()
  if ((SETUP)); then
    bench_begin connect-rate
    bench_sandbox_start "$SANDBOX_DIR" "$BASE_PORT" 1
    start_sluice
    args=(--direct "jdbc:mariadb://127.0.0.1:$BASE_PORT/test" --sluice "jdbc:mariadb://127.0.0.1:$PROXY_PORT/test"
      --watch "sluice=$BENCH_SLUICE_PID,primary=$(cat "$SANDBOX_DIR/node0/mariadbd.pid"),replica=$(cat "$SANDBOX_DIR/node1/mariadbd.pid")")
  fi
  local status=0
  # shellcheck disable=SC2086 # RATE_JAVA_OPTS is a list of JVM options
  java ${RATE_JAVA_OPTS:-} -cp "$BENCH_JAR" "$MAIN_CLASS" "${args[@]}" "${RATE_ARGS[@]}" || status=$?
  return "$status"
}

main "$@"
