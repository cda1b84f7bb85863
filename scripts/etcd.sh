#!/usr/bin/env bash
# A local single-node etcd for cluster mode's demo and tests, on loopback ports of its own.
#
#   scripts/etcd.sh start|stop|status|destroy [--port P] [--dir D] [--tls T [--client-cert-auth]]
#
# Clients connect to http://127.0.0.1:P (https:// with --tls); the peer port is P+10. Data, log
# and pid file live in DIR (default .etcd/default). etcd's default ports (2379/2380) are never
# used: another etcd, the system's or someone else's, may be there. No system service or
# configuration is involved.
#
# With --tls T, etcd serves its clients over TLS with the certificates in T, made with openssl the
# first time (a CA, a server certificate for 127.0.0.1 and localhost, and a client certificate
# whose common name is "sluice"); --client-cert-auth makes etcd refuse clients without a
# certificate signed by that CA. The peer URL stays plain http: it is loopback, and one node.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly DEFAULT_PORT=23790
readonly PEER_PORT_OFFSET=10
readonly DEFAULT_DIR="$SLUICE_ROOT/.etcd/default"
readonly START_TIMEOUT_S=30
readonly STOP_TIMEOUT_S=20
readonly RESERVED_PORTS=" 2379 2380 "
readonly CERT_DAYS=3650
readonly CLIENT_CN=sluice

usage() {
  cat <<EOF
Usage: scripts/etcd.sh COMMAND [--port P] [--dir D] [--tls T [--client-cert-auth]]

Commands:
  start     start etcd (a fresh or an existing data directory) and wait until it answers
  stop      stop it (data is kept)
  status    running or not, and where
  destroy   stop, then delete the directory

Options (defaults: --port $DEFAULT_PORT --dir .etcd/default):
  --port P  the client port on 127.0.0.1; the peer port is P+$PEER_PORT_OFFSET
  --dir D   the data directory, log (etcd.log) and pid file (etcd.pid)
  --tls T   (start) serve clients over TLS (https://127.0.0.1:P) with the PEM files in T:
            ca.pem, server.pem + server-key.pem, client.pem + client-key.pem (CN=$CLIENT_CN),
            each made with openssl when missing; status finds T by itself
  --client-cert-auth
            (start, with --tls) refuse clients without a certificate signed by T/ca.pem
EOF
}

PORT=$DEFAULT_PORT
DIR=$DEFAULT_DIR
TLS_DIR=""
CLIENT_CERT_AUTH=0

parse_options() {
  while (($# > 0)); do
    case "$1" in
      --port) PORT="${2:?--port needs a value}"; shift 2 ;;
      --dir) DIR="${2:?--dir needs a value}"; shift 2 ;;
      --tls) TLS_DIR="${2:?--tls needs a directory}"; shift 2 ;;
      --client-cert-auth) CLIENT_CERT_AUTH=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die "unknown option '$1'" ;;
    esac
  done
  [[ "$PORT" =~ ^[0-9]+$ ]] && ((PORT > 0 && PORT + PEER_PORT_OFFSET < 65536)) || die "--port: '$PORT' is not a port"
  [[ "$RESERVED_PORTS" != *" $PORT "* && "$RESERVED_PORTS" != *" $((PORT + PEER_PORT_OFFSET)) "* ]] ||
    die "--port $PORT: etcd's default ports 2379/2380 are left to other etcds; pick another (e.g. $DEFAULT_PORT)"
  ((CLIENT_CERT_AUTH == 0)) || [[ -n "$TLS_DIR" ]] ||
    die "--client-cert-auth needs --tls T (the CA in T signs the clients' certificates)"
  DIR="$(realpath -m "$DIR")"
  [[ -z "$TLS_DIR" ]] || TLS_DIR="$(realpath -m "$TLS_DIR")"
}

pidfile() { printf '%s/etcd.pid' "$DIR"; }
logfile() { printf '%s/etcd.log' "$DIR"; }
# Where a TLS etcd's start wrote its certificates' directory, so that status checks it over TLS.
tlsfile() { printf '%s/etcd.tls' "$DIR"; }
scheme() { if [[ -n "$TLS_DIR" ]]; then printf 'https'; else printf 'http'; fi; }

running_pid() {
  local pid
  [[ -f "$(pidfile)" ]] || return 1
  pid="$(cat "$(pidfile)")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  printf '%s\n' "$pid"
}

healthy() {
  local -a tls=()
  [[ -z "$TLS_DIR" ]] || tls=(--cacert "$TLS_DIR/ca.pem" --cert "$TLS_DIR/client.pem" --key "$TLS_DIR/client-key.pem")
  curl -fsS --max-time 2 "${tls[@]}" "$(scheme)://127.0.0.1:$PORT/health" 2>/dev/null | grep -q '"health":"true"'
}

# new_key FILE: an EC P-256 private key in PKCS#8 PEM (what both etcd and Java read), owner-only.
new_key() {
  (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null)
}

# sign NAME CN EXTENSIONS: TLS_DIR/NAME.pem for NAME-key.pem (made when missing), signed by the CA.
sign() {
  local name="$1" cn="$2" extensions="$3"
  [[ -f "$TLS_DIR/$name-key.pem" ]] || new_key "$TLS_DIR/$name-key.pem"
  openssl req -new -key "$TLS_DIR/$name-key.pem" -subj "/CN=$cn" -out "$TLS_DIR/$name.csr" 2>/dev/null
  openssl x509 -req -in "$TLS_DIR/$name.csr" -CA "$TLS_DIR/ca.pem" -CAkey "$TLS_DIR/ca-key.pem" \
    -CAcreateserial -days "$CERT_DAYS" -extfile <(printf '%s\n' "$extensions") -out "$TLS_DIR/$name.pem" 2>/dev/null
  rm -f "$TLS_DIR/$name.csr"
}

# ensure_certificates: makes what is missing in TLS_DIR. Files already there are used as they
# are, so an operator's own certificates are given the same way.
ensure_certificates() {
  require_bin openssl >/dev/null
  mkdir -p "$TLS_DIR"
  if [[ ! -f "$TLS_DIR/ca.pem" ]]; then
    [[ ! -f "$TLS_DIR/server.pem" && ! -f "$TLS_DIR/client.pem" ]] ||
      die "--tls $TLS_DIR: certificates are there without the CA that signed them (ca.pem); add it or empty the directory"
    info "Making a CA in $TLS_DIR"
    new_key "$TLS_DIR/ca-key.pem"
    openssl req -x509 -new -key "$TLS_DIR/ca-key.pem" -subj "/CN=sluice etcd CA" -days "$CERT_DAYS" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out "$TLS_DIR/ca.pem" 2>/dev/null
  fi
  if [[ ! -f "$TLS_DIR/server.pem" ]]; then
    info "Making etcd's server certificate for 127.0.0.1 and localhost in $TLS_DIR"
    # clientAuth too: etcd's own HTTP gateway connects to its gRPC server with this certificate.
    sign server 127.0.0.1 $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth'
  fi
  if [[ ! -f "$TLS_DIR/client.pem" ]]; then
    info "Making a client certificate (CN=$CLIENT_CN) in $TLS_DIR"
    sign client "$CLIENT_CN" "extendedKeyUsage=clientAuth"
  fi
}

cmd_start() {
  local etcd deadline pid url
  local -a tls=()
  if pid="$(running_pid)"; then
    info "etcd already runs (pid $pid) on 127.0.0.1:$PORT"
    return 0
  fi
  etcd="$(require_bin etcd)"
  ! port_open "$PORT" || die "port $PORT is taken by another process; pick another with --port"
  ! port_open $((PORT + PEER_PORT_OFFSET)) || die "port $((PORT + PEER_PORT_OFFSET)) is taken; pick another --port"
  mkdir -p "$DIR"
  rm -f "$(tlsfile)"
  if [[ -n "$TLS_DIR" ]]; then
    ensure_certificates
    tls=(--cert-file "$TLS_DIR/server.pem" --key-file "$TLS_DIR/server-key.pem")
    ((CLIENT_CERT_AUTH == 0)) || tls+=(--client-cert-auth --trusted-ca-file "$TLS_DIR/ca.pem")
    printf '%s\n' "$TLS_DIR" >"$(tlsfile)"
  fi
  url="$(scheme)://127.0.0.1:$PORT"
  info "Starting etcd on $url in $DIR"
  # setsid: the server outlives the shell that started it and gets none of its signals.
  setsid "$etcd" --name "sluice-etcd-$PORT" --data-dir "$DIR/data" \
    --listen-client-urls "$url" --advertise-client-urls "$url" "${tls[@]}" \
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
  info "etcd answers on $url"
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
  [[ -n "$TLS_DIR" || ! -f "$(tlsfile)" ]] || TLS_DIR="$(cat "$(tlsfile)")"
  if pid="$(running_pid)"; then
    printf 'etcd running, pid %s, %s://127.0.0.1:%s, %s\n' "$pid" "$(scheme)" "$PORT" "$(healthy && echo healthy || echo 'not answering')"
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
