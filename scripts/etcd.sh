#!/usr/bin/env bash
# A local single-node etcd for cluster mode's demo and tests, on loopback ports of its own.
#
#   scripts/etcd.sh start|stop|status|destroy [--port P] [--dir D]
#
# Clients connect to http://127.0.0.1:P; the peer port is P+10. Data, log and pid file live in
# DIR (default .etcd/default). etcd's default ports (2379/2380) are never used: another etcd,
# the system's or someone else's, may be there. No system service or configuration is involved.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly DEFAULT_PORT=23790
readonly PEER_PORT_OFFSET=10
readonly DEFAULT_DIR="$SLUICE_ROOT/.etcd/default"
readonly START_TIMEOUT_S=30
readonly STOP_TIMEOUT_S=20
readonly RESERVED_PORTS=" 2379 2380 "

usage() {
  cat <<EOF
Usage: scripts/etcd.sh COMMAND [--port P] [--dir D]

Commands:
  start     start etcd (a fresh or an existing data directory) and wait until it answers
  stop      stop it (data is kept)
  status    running or not, and where
  destroy   stop, then delete the directory

Options (defaults: --port $DEFAULT_PORT --dir .etcd/default):
  --port P  the client port on 127.0.0.1; the peer port is P+$PEER_PORT_OFFSET
  --dir D   the data directory, log (etcd.log) and pid file (etcd.pid)
EOF
}

PORT=$DEFAULT_PORT
DIR=$DEFAULT_DIR

parse_options() {
  while (($# > 0)); do
    case "$1" in
      --port) PORT="${2:?--port needs a value}"; shift 2 ;;
      --dir) DIR="${2:?--dir needs a value}"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option '$1'" ;;
    esac
  done
  [[ "$PORT" =~ ^[0-9]+$ ]] && ((PORT > 0 && PORT + PEER_PORT_OFFSET < 65536)) || die "--port: '$PORT' is not a port"
  [[ "$RESERVED_PORTS" != *" $PORT "* && "$RESERVED_PORTS" != *" $((PORT + PEER_PORT_OFFSET)) "* ]] ||
    die "--port $PORT: etcd's default ports 2379/2380 are left to other etcds; pick another (e.g. $DEFAULT_PORT)"
  DIR="$(realpath -m "$DIR")"
}

pidfile() { printf '%s/etcd.pid' "$DIR"; }
logfile() { printf '%s/etcd.log' "$DIR"; }

running_pid() {
  local pid
  [[ -f "$(pidfile)" ]] || return 1
  pid="$(cat "$(pidfile)")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  printf '%s\n' "$pid"
}

healthy() {
  curl -fsS --max-time 2 "http://127.0.0.1:$PORT/health" 2>/dev/null | grep -q '"health":"true"'
}

cmd_start() {
  local etcd deadline pid
  if pid="$(running_pid)"; then
    info "etcd already runs (pid $pid) on 127.0.0.1:$PORT"
    return 0
  fi
  etcd="$(require_bin etcd)"
  ! port_open "$PORT" || die "port $PORT is taken by another process; pick another with --port"
  ! port_open $((PORT + PEER_PORT_OFFSET)) || die "port $((PORT + PEER_PORT_OFFSET)) is taken; pick another --port"
  mkdir -p "$DIR"
  info "Starting etcd on 127.0.0.1:$PORT in $DIR"
  # setsid: the server outlives the shell that started it and gets none of its signals.
  setsid "$etcd" --name "sluice-etcd-$PORT" --data-dir "$DIR/data" \
    --listen-client-urls "http://127.0.0.1:$PORT" --advertise-client-urls "http://127.0.0.1:$PORT" \
    --listen-peer-urls "http://127.0.0.1:$((PORT + PEER_PORT_OFFSET))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((PORT + PEER_PORT_OFFSET))" \
    --initial-cluster "sluice-etcd-$PORT=http://127.0.0.1:$((PORT + PEER_PORT_OFFSET))" \
    --initial-cluster-state new >>"$(logfile)" 2>&1 </dev/null &
  echo $! >"$(pidfile)"
  deadline=$((SECONDS + START_TIMEOUT_S))
  until healthy; do
    running_pid >/dev/null || { tail -20 "$(logfile)" >&2; die "etcd exited while starting (log: $(logfile))"; }
    ((SECONDS < deadline)) || { tail -20 "$(logfile)" >&2; die "etcd did not answer within ${START_TIMEOUT_S}s"; }
    sleep 0.2
  done
  info "etcd answers on http://127.0.0.1:$PORT"
}

cmd_stop() {
  local pid deadline
  pid="$(running_pid)" || { rm -f "$(pidfile)"; return 0; }
  kill -TERM "$pid"
  deadline=$((SECONDS + STOP_TIMEOUT_S))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      warn "etcd (pid $pid) did not stop within ${STOP_TIMEOUT_S}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
  rm -f "$(pidfile)"
  info "etcd on port $PORT stopped"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    printf 'etcd running, pid %s, http://127.0.0.1:%s, %s\n' "$pid" "$PORT" "$(healthy && echo healthy || echo 'not answering')"
  else
    printf 'etcd not running (%s)\n' "$DIR"
    return 1
  fi
}

cmd_destroy() {
  cmd_stop
  rm -rf "$DIR"
  info "removed $DIR"
}

main() {
  local command="${1:-}"
  (($# == 0)) || shift
  case "$command" in
    start | stop | status | destroy)
      parse_options "$@"
      "cmd_$command"
      ;;
    -h | --help | help) usage ;;
    *) usage >&2; die "unknown command '$command'" ;;
  esac
}

main "$@"
