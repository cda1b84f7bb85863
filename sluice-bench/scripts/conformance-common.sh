# shellcheck shell=bash
# What conformance-mysqltest.sh and conformance-clients.sh share: their options, their sandbox and
# the Sluice they start, with one read-write endpoint per kind compared. Source it after lib.sh.

readonly CONFORMANCE_DIR="$SLUICE_ROOT/sluice-bench/conformance"
readonly ALL_ENDPOINT_KINDS=eventual,session,global,transaction
# Ports apart from the demo (3311..), sysbench-compare (3331..), consistency-check (3351..) and
# connect-rate (3381..).
SANDBOX_DIR="$SLUICE_ROOT/.sandbox/conformance"
BASE_PORT=3361
PROXY_BASE_PORT=6361
REPLICAS=2
SLUICE_JAR_OVERRIDE=""

conformance_common_usage() {
  cat <<EOF
  --sandbox-dir D      the sandbox, started if needed and stopped if it was (default .sandbox/conformance)
  --base-port P        its primary's port; replicas on P+1, P+2 (default $BASE_PORT)
  --proxy-base-port P  Sluice's endpoints: eventual P, session P+1, global P+2, transaction P+3;
                       admin P+8 (default $PROXY_BASE_PORT)
  --sluice-jar FILE    run this Sluice jar (default: sluice-server/target/sluice.jar, rebuilt
                       when older than its sources)
EOF
}

# conformance_common_option ARGS...: takes one shared option from the front of ARGS and sets
# COMMON_SHIFT to the number of words it used; returns 1 when the first word is not one.
conformance_common_option() {
  COMMON_SHIFT=2
  case "$1" in
    --sandbox-dir) SANDBOX_DIR="$(realpath -m -- "${2:?--sandbox-dir needs a directory}")" ;;
    --base-port) BASE_PORT="${2:?--base-port needs a port}" ;;
    --proxy-base-port) PROXY_BASE_PORT="${2:?--proxy-base-port needs a port}" ;;
    --sluice-jar) SLUICE_JAR_OVERRIDE="$(realpath -- "${2:?--sluice-jar needs a file}")" ;;
    *) return 1 ;;
  esac
  [[ "$BASE_PORT" =~ ^[0-9]+$ && "$PROXY_BASE_PORT" =~ ^[0-9]+$ ]] ||
    die "--base-port and --proxy-base-port take port numbers"
}

# endpoint_port KIND: where Sluice listens for that endpoint kind.
endpoint_port() {
  case "$1" in
    eventual) echo "$PROXY_BASE_PORT" ;;
    session) echo $((PROXY_BASE_PORT + 1)) ;;
    global) echo $((PROXY_BASE_PORT + 2)) ;;
    transaction) echo $((PROXY_BASE_PORT + 3)) ;;
    *) die "unknown endpoint kind '$1' (expected one of $ALL_ENDPOINT_KINDS)" ;;
  esac
}

admin_port() { echo $((PROXY_BASE_PORT + 8)); }

# endpoint_settings KIND: the settings that make the kind. The transaction pool runs `session`
# consistency, the level an application that pools would choose to read its own writes.
endpoint_settings() {
  case "$1" in
    eventual | session | global) echo "consistency: $1" ;;
    transaction) echo "consistency: session, connection-pool: transaction" ;;
  esac
}

# write_conformance_config FILE KINDS: one read-write endpoint per kind, otherwise Sluice's
# defaults; the primary's read weight 0, so reads go to the replicas as the promises are tested.
write_conformance_config() {
  local file="$1" kinds="$2" kind k
  {
    echo "# conformance: one read-write endpoint per kind compared, otherwise Sluice's defaults."
    echo "monitor: {user: monitor, password: monitor, interval: 1s}"
    echo "nodes:"
    echo "  - {name: primary, address: 127.0.0.1:$BASE_PORT, role: primary}"
    for ((k = 1; k <= REPLICAS; k++)); do
      echo "  - {name: ro$k, address: 127.0.0.1:$((BASE_PORT + k)), role: replica}"
    done
    echo "endpoints:"
    for kind in ${kinds//,/ }; do
      echo "  - {name: $kind, listen: 127.0.0.1:$(endpoint_port "$kind"), mode: read-write,"
      echo "     weights: {primary: 0$(for ((k = 1; k <= REPLICAS; k++)); do printf ', ro%d: 100' "$k"; done)},"
      echo "     $(endpoint_settings "$kind")}"
    done
    echo "admin: {listen: 127.0.0.1:$(admin_port), token: \"\"}"
  } >"$file"
}

# start_conformance_sluice KINDS: Sluice with an endpoint per kind, its files in BENCH_WORK.
start_conformance_sluice() {
  local kinds="$1" kind
  local -a ports=()
  write_conformance_config "$BENCH_WORK/sluice.yaml" "$kinds"
  for kind in ${kinds//,/ }; do ports+=("$(endpoint_port "$kind")"); done
  info "Starting Sluice: endpoints ${kinds//,/, } on ${ports[*]} (configuration: $BENCH_WORK/sluice.yaml)"
  bench_sluice_start "$SLUICE_JAR_OVERRIDE" "$BENCH_WORK/sluice.yaml" "$BENCH_WORK/sluice.log" "${ports[@]}"
}
