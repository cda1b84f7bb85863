#!/usr/bin/env bash
# The cluster-mode part of `./sluice demo --cluster` (docs/BEHAVIOUR.md §11), run by demo.sh once
# the sandbox and its demo data are ready:
#   1. a fresh local etcd on 127.0.0.1:23790 (scripts/etcd.sh), so the first instance seeds it;
#   2. three Sluice instances, a, b and c, each from CONFIG with its own admin port (8033-8035),
#      endpoints on ports of their own (port 0: the endpoints are shared through etcd, so one
#      machine's instances cannot all listen on one port) and a cluster: section naming etcd;
#   3. HAProxy in TCP mode in front of them on the demo's usual ports: 6033 balances over the
#      instances' read-write endpoints, 6034 over their read-only ones.
# Ctrl-C stops the instances, HAProxy and etcd; the sandbox keeps running.
#
#   scripts/demo-cluster.sh CONFIG SANDBOX_DIR
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# == 2)) || die "usage: scripts/demo-cluster.sh CONFIG SANDBOX_DIR (run it through ./sluice demo --cluster)"
readonly CONFIG="$1" SANDBOX_DIR="$2"
readonly WORK="$SLUICE_ROOT/.sandbox/demo-cluster"
readonly ETCD_PORT=23790
readonly ETCD_DIR="$SLUICE_ROOT/.etcd/demo"
readonly PREFIX=/sluice/demo
readonly NAMES=(a b c)
readonly FIRST_ADMIN_PORT=8033
readonly RW_PORT=6033 RO_PORT=6034
readonly START_TIMEOUT_S=90
# An instance's shutdown-timeout (5 s below) and a margin.
readonly STOP_TIMEOUT_S=15

etcd_ctl() { "$SLUICE_ROOT/scripts/etcd.sh" "$1" --port "$ETCD_PORT" --dir "$ETCD_DIR"; }

for port in "$RW_PORT" "$RO_PORT" $(seq "$FIRST_ADMIN_PORT" $((FIRST_ADMIN_PORT + ${#NAMES[@]} - 1))); do
  ! port_open "$port" || die "port $port is taken (a './sluice demo' still running?); stop what listens there first"
done

# instance_config NAME ADMIN_PORT: CONFIG with port-0 endpoints, the instance's admin port and
# its cluster: section. Dies when CONFIG lacks a line the demo rewrites, rather than run two
# instances on one port.
instance_config() {
  local name="$1" admin_port="$2" config
  config="$(sed -E \
    -e 's#^(\s+listen:\s*)127\.0\.0\.1:[0-9]+#\1127.0.0.1:0#' \
    -e "s#^admin: \\{listen: 127\\.0\\.0\\.1:[0-9]+#admin: {listen: 127.0.0.1:$admin_port#" "$CONFIG")"
  grep -q "^admin: {listen: 127.0.0.1:$admin_port" <<<"$config" || die "$CONFIG has no 'admin: {listen: 127.0.0.1:PORT' line"
  ! grep -qE '^\s+listen:\s*127\.0\.0\.1:[1-9]' <<<"$config" || die "$CONFIG has an endpoint listen line the demo cannot rewrite"
  printf '%s\n\n# Written by ./sluice demo --cluster: instance %s of the demo cluster.\n' "$config" "$name"
  printf 'cluster: {etcd: [http://127.0.0.1:%s], name: %s, prefix: %s}\n' "$ETCD_PORT" "$name" "$PREFIX"
  printf 'shutdown-timeout: 5s\n'
}

# endpoint_port LOG ENDPOINT: the port the instance logged for ENDPOINT, once it listens.
endpoint_port() {
  [[ -f "$1" ]] || return 0
  sed -nE "s#.*endpoint '$2' \\([a-z-]+\\) listening on /127\\.0\\.0\\.1:([0-9]+).*#\\1#p" "$1" | tail -n 1
}

pids=()
haproxy_pid=""
stop_all() {
  # Stopping comes first and nothing may end it early: not an error, not a closed terminal.
  trap - INT TERM EXIT
  set +e
  [[ -z "$haproxy_pid" ]] || kill -TERM "$haproxy_pid" 2>/dev/null || true
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  local deadline=$((SECONDS + STOP_TIMEOUT_S))
  for pid in "${pids[@]}" $haproxy_pid; do
    while kill -0 "$pid" 2>/dev/null; do
      ((SECONDS < deadline)) || kill -KILL "$pid" 2>/dev/null
      sleep 0.2
    done
  done
  etcd_ctl stop >/dev/null 2>&1
  info "Stopped the instances, HAProxy and etcd"
  printf '\nThe sandbox is still running:\n'
  printf '    ./sluice sandbox status --dir %s\n' "${SANDBOX_DIR#"$SLUICE_ROOT"/}"
  printf '    ./sluice sandbox stop --dir %s\n' "${SANDBOX_DIR#"$SLUICE_ROOT"/}"
}
trap stop_all EXIT

info "Starting a fresh etcd for the demo cluster"
etcd_ctl destroy >/dev/null
etcd_ctl start
rm -rf "$WORK"
mkdir -p "$WORK"

declare -A rw_port ro_port
read -r -a java_opts <<<"${SLUICE_JAVA_OPTS:-}"
i=0
for name in "${NAMES[@]}"; do
  admin_port=$((FIRST_ADMIN_PORT + i))
  mkdir -p "$WORK/$name"
  instance_config "$name" "$admin_port" >"$WORK/$name/sluice.yaml"
  info "Starting Sluice instance '$name' (admin API on 127.0.0.1:$admin_port, log $WORK/$name/sluice.log)"
  # One after the other: the first seeds etcd, and three JVMs starting at once on a small machine
  # take longer than three in a row. setsid: Ctrl-C reaches this script, which stops them in order.
  setsid java "${java_opts[@]}" -jar "$SLUICE_JAR" run --config "$WORK/$name/sluice.yaml" \
    >"$WORK/$name/sluice.log" 2>&1 </dev/null &
  pids+=($!)
  deadline=$((SECONDS + START_TIMEOUT_S))
  until [[ -n "$(endpoint_port "$WORK/$name/sluice.log" rw)" && -n "$(endpoint_port "$WORK/$name/sluice.log" ro)" ]]; do
    kill -0 "${pids[-1]}" 2>/dev/null || { tail -n 20 "$WORK/$name/sluice.log" >&2; die "instance '$name' exited while starting"; }
    ((SECONDS < deadline)) || { tail -n 20 "$WORK/$name/sluice.log" >&2; die "instance '$name' did not listen within ${START_TIMEOUT_S}s"; }
    sleep 0.2
  done
  rw_port[$name]="$(endpoint_port "$WORK/$name/sluice.log" rw)"
  ro_port[$name]="$(endpoint_port "$WORK/$name/sluice.log" ro)"
  i=$((i + 1))
done

# TCP mode, as a deployment runs it: HAProxy checks each instance and sends a client whose
# instance is gone to another one (option redispatch) when it reconnects.
{
  printf 'global\n  maxconn 4000\ndefaults\n  mode tcp\n  timeout connect 1s\n'
  printf '  timeout client 1h\n  timeout server 1h\n  retries 3\n  option redispatch\n'
  for endpoint in rw ro; do
    if [[ "$endpoint" == rw ]]; then front=$RW_PORT; else front=$RO_PORT; fi
    printf 'listen %s\n  bind 127.0.0.1:%s\n  balance leastconn\n' "$endpoint" "$front"
    for name in "${NAMES[@]}"; do
      if [[ "$endpoint" == rw ]]; then port="${rw_port[$name]}"; else port="${ro_port[$name]}"; fi
      printf '  server %s 127.0.0.1:%s check inter 1s fall 2 rise 2\n' "$name" "$port"
    done
  done
} >"$WORK/haproxy.cfg"
info "Starting HAProxy on 127.0.0.1:$RW_PORT and :$RO_PORT ($WORK/haproxy.cfg)"
setsid "$(require_bin haproxy)" -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 </dev/null &
haproxy_pid=$!
wait_for_port "$RW_PORT" 20 && wait_for_port "$RO_PORT" 20 ||
  { cat "$WORK/haproxy.log" >&2; die "HAProxy did not listen on $RW_PORT and $RO_PORT"; }

cat <<EOF

Three Sluice instances share one configuration through etcd (prefix $PREFIX), behind HAProxy.

  Read-write endpoint, through HAProxy:   mariadb -h127.0.0.1 -P$RW_PORT -uapp -papp demo
  Read-only endpoint, through HAProxy:    mariadb -h127.0.0.1 -P$RO_PORT -uapp -papp demo
  Instances (pid, admin API, own rw and ro ports):
$(for k in "${!NAMES[@]}"; do n="${NAMES[k]}"; printf '    %s  pid %-7s http://127.0.0.1:%s/  rw %s  ro %s\n' \
    "$n" "${pids[k]}" $((FIRST_ADMIN_PORT + k)) "${rw_port[$n]}" "${ro_port[$n]}"; done)

  Try:
    ./sluice describe-proxy --admin http://127.0.0.1:8034      every instance, and which one leads, seen from b
    ./sluice modify-endpoint rw --set consistency=session --admin http://127.0.0.1:8033
    ./sluice describe-endpoint rw --admin http://127.0.0.1:8035    ... and c runs it within a second
    kill -9 ${pids[0]}     instance a dies: its clients reconnect through HAProxy to b and c, and a
                        leaves describe-proxy when its lease expires (5 s)

Press Ctrl-C to stop the instances, HAProxy and etcd; the sandbox keeps running.

EOF

trap 'exit 0' INT TERM HUP
while true; do
  sleep 1
done
