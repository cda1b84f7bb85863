#!/usr/bin/env bash
# A local MariaDB cluster for the demo, the integration tests and the benchmarks:
# one primary and N replicas on 127.0.0.1, GTID replication, each node in DIR/nodeK.
#
#   scripts/sandbox.sh start|stop|status|destroy [--replicas N] [--base-port P] [--dir D]
#   scripts/sandbox.sh start-node NODE [--dir D]   # one node, e.g. after a test killed it
#   scripts/sandbox.sh sync [--dir D]              # wait until the replicas have caught up
#
# Node K listens on port P+K and has server_id K+1; node0 is the primary ("primary"),
# node1.. are replicas ("ro1", "ro2", ...). Every node runs from its own generated
# DIR/nodeK/my.cnf (--defaults-file), so no system configuration, service, port or
# socket is ever involved. Accounts (created on the primary, replicated):
#   root@localhost  no password, socket only (used by this script)
#   app@127.0.0.1, app@localhost  password app: all privileges except READ_ONLY ADMIN,
#                   so replicas' read_only applies to it as it would to an application
#   monitor@127.0.0.1  password monitor: what a proxy's monitor and account loader need
#   repl@127.0.0.1  password repl: replication
# Databases: sbtest, test.
# TLS: DIR/tls holds a CA (ca.pem) and a server certificate for localhost, 127.0.0.1 and ::1
# signed by it, made once with openssl; every node offers TLS with it (clients may verify
# with --ssl-ca=DIR/tls/ca.pem). A sandbox made before TLS existed gets it at its next restart.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly DEFAULT_REPLICAS=2
readonly DEFAULT_BASE_PORT=3311
readonly DEFAULT_DIR="$SLUICE_ROOT/.sandbox/default"
readonly SYSTEM_PORT=3306
readonly STATE_FILE_NAME=sandbox.conf
readonly READY_MARKER_NAME=.initialised
readonly NODE_START_TIMEOUT_S=60
readonly CATCH_UP_TIMEOUT_S=60
readonly SHUTDOWN_TIMEOUT_S=60
# sockaddr_un.sun_path is 108 bytes; stay clear of it.
readonly MAX_SOCKET_PATH=100
readonly MIN_MARIADB_MAJOR=10
readonly MIN_MARIADB_MINOR=6
readonly TLS_DIR_NAME=tls
readonly TLS_VALIDITY_DAYS=3650

usage() {
  cat <<EOF
Usage: sluice sandbox COMMAND [--replicas N] [--base-port P] [--dir D]

Commands:
  start           initialise (fresh directory) or restart (existing one) the cluster and
                  wait until every replica replicates and has caught up
  stop            shut every node down cleanly (data is kept)
  status          one line per node: port, pid, state, read_only, GTID, replication
  destroy         stop, then delete the directory
  start-node NODE start one node (primary, roK or nodeK) and wait until it answers; with
                  --as-replica, a former primary that is to rejoin as a replica: its crash
                  recovery rolls back, and cuts from its binary log, the commits that were
                  still waiting for a semi-synchronous acknowledgement when it died
  sync            wait until every running replica has caught up with the primary

Options (defaults: --replicas $DEFAULT_REPLICAS --base-port $DEFAULT_BASE_PORT --dir .sandbox/default):
  --replicas N    number of replicas
  --base-port P   the primary's port; replica K listens on P+K
  --dir D         the cluster's directory (datadirs, sockets, logs, my.cnf files)
An existing directory remembers its replicas and base port; giving other values is an error.
EOF
}

# ---------------------------------------------------------------------------------------
# Options and cluster layout

REPLICAS=""
BASE_PORT=""
DIR=""
NODE_ARG=""
AS_REPLICA=0
MARIADBD=""

parse_options() {
  while (($#)); do
    case "$1" in
      --replicas) REPLICAS="${2:?--replicas needs a number}"; shift 2 ;;
      --replicas=*) REPLICAS="${1#*=}"; shift ;;
      --base-port) BASE_PORT="${2:?--base-port needs a port}"; shift 2 ;;
      --base-port=*) BASE_PORT="${1#*=}"; shift ;;
      --dir) DIR="${2:?--dir needs a directory}"; shift 2 ;;
      --dir=*) DIR="${1#*=}"; shift ;;
      --as-replica) AS_REPLICA=1; shift ;;
      -h | --help) usage; exit 0 ;;
      -*) usage >&2; die "unknown option '$1'" ;;
      *)
        [[ -z "$NODE_ARG" ]] || die "unexpected argument '$1'"
        NODE_ARG="$1"
        shift
        ;;
    esac
  done
  [[ -z "$REPLICAS" || "$REPLICAS" =~ ^[0-9]+$ ]] || die "--replicas must be a number, got '$REPLICAS'"
  [[ -z "$BASE_PORT" || "$BASE_PORT" =~ ^[0-9]+$ ]] || die "--base-port must be a port number, got '$BASE_PORT'"
  # Absolute and normalised, whether or not it exists yet: node command lines, pid
  # checks and sockets are derived from it.
  DIR="$(realpath -m -- "${DIR:-$DEFAULT_DIR}")"
  [[ "$DIR" != / ]] || die "--dir cannot be /"
}

state_file() { printf '%s/%s' "$DIR" "$STATE_FILE_NAME"; }
is_initialised() { [[ -f "$DIR/$READY_MARKER_NAME" ]]; }

# load_state: takes replicas and base port from the directory's state file; explicit
# options must agree with it. Without a state file, applies the defaults.
load_state() {
  local file key value stored_replicas="" stored_base_port=""
  file="$(state_file)"
  if [[ -f "$file" ]]; then
    while IFS='=' read -r key value; do
      case "$key" in
        replicas) stored_replicas="$value" ;;
        base_port) stored_base_port="$value" ;;
      esac
    done <"$file"
    [[ "$stored_replicas" =~ ^[0-9]+$ && "$stored_base_port" =~ ^[0-9]+$ ]] ||
      die "$file is damaged; run 'sluice sandbox destroy --dir $DIR' and start again"
    if [[ -n "$REPLICAS" && "$REPLICAS" != "$stored_replicas" ]] ||
      [[ -n "$BASE_PORT" && "$BASE_PORT" != "$stored_base_port" ]]; then
      die "$DIR holds a cluster with $stored_replicas replicas on base port $stored_base_port;" \
        "use another --dir, or 'sluice sandbox destroy --dir $DIR' first"
    fi
    REPLICAS="$stored_replicas"
    BASE_PORT="$stored_base_port"
  else
    REPLICAS="${REPLICAS:-$DEFAULT_REPLICAS}"
    BASE_PORT="${BASE_PORT:-$DEFAULT_BASE_PORT}"
  fi
  local last_port=$((BASE_PORT + REPLICAS))
  ((BASE_PORT >= 1024 && last_port <= 65535)) ||
    die "ports $BASE_PORT..$last_port are out of range (1024..65535)"
  if ((BASE_PORT <= SYSTEM_PORT && SYSTEM_PORT <= last_port)); then
    die "ports $BASE_PORT..$last_port include $SYSTEM_PORT, the system MariaDB's port; choose another --base-port"
  fi
}

save_state() {
  printf 'replicas=%s\nbase_port=%s\n' "$REPLICAS" "$BASE_PORT" >"$(state_file)"
}

node_count() { echo $((REPLICAS + 1)); }
node_dir() { printf '%s/node%s' "$DIR" "$1"; }
node_cnf() { printf '%s/my.cnf' "$(node_dir "$1")"; }
node_pidfile() { printf '%s/mariadbd.pid' "$(node_dir "$1")"; }
node_log() { printf '%s/error.log' "$(node_dir "$1")"; }
node_port() { echo $((BASE_PORT + $1)); }
node_server_id() { echo $(($1 + 1)); }
node_name() { if (($1 == 0)); then echo primary; else echo "ro$1"; fi; }
tls_dir() { printf '%s/%s' "$DIR" "$TLS_DIR_NAME"; }
has_tls() { [[ -s "$(tls_dir)/ca.pem" && -s "$(tls_dir)/server-cert.pem" && -s "$(tls_dir)/server-key.pem" ]]; }

# The socket lives in the node's directory unless that path is too long for a Unix
# socket; then in /tmp under a name derived from the directory.
node_socket() {
  local path
  path="$(node_dir "$1")/mariadbd.sock"
  if ((${#path} > MAX_SOCKET_PATH)); then
    path="/tmp/sluice-sandbox-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)-node$1.sock"
  fi
  printf '%s' "$path"
}

# node_index NAME: accepts primary, roK, nodeK or K.
node_index() {
  local k
  case "$1" in
    primary) k=0 ;;
    ro[0-9]*) k="${1#ro}" ;;
    node[0-9]*) k="${1#node}" ;;
    [0-9]*) k="$1" ;;
    *) die "unknown node '$1' (expected primary, roK, nodeK or K)" ;;
  esac
  if ! [[ "$k" =~ ^[0-9]+$ ]] || ((k > REPLICAS)); then
    die "no node '$1' in a cluster with $REPLICAS replicas"
  fi
  echo "$k"
}

# ---------------------------------------------------------------------------------------
# Processes

# node_pid K: the pid of node K's running mariadbd, or nothing. The pid file is checked
# against the process's command line, so a stale file or a reused pid is not mistaken
# for the node.
node_pid() {
  local pidfile pid cmdline
  pidfile="$(node_pidfile "$1")"
  [[ -f "$pidfile" ]] || return 0
  pid="$(tr -dc '0-9' <"$pidfile")"
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 0
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 0
  [[ "$cmdline" == *"--defaults-file=$(node_cnf "$1")"* ]] || return 0
  [[ "$(process_state "$pid")" != Z ]] || return 0
  echo "$pid"
}

# process_state PID: the one-letter state from /proc (R, S, T for stopped, Z, ...).
process_state() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }"
  echo "${stat%% *}"
}

is_paused() { [[ "$(process_state "$1")" == T ]]; }

# resume_if_paused K: a SIGSTOPped node (a test's pause) would hang every client.
resume_if_paused() {
  local pid
  pid="$(node_pid "$1")"
  if [[ -n "$pid" ]] && is_paused "$pid"; then
    note "$(node_name "$1") (pid $pid) was paused; resuming it"
    kill -CONT "$pid"
  fi
}

# sql K STATEMENTS: runs SQL on node K as root over its socket; batch output, no headers.
sql() {
  mariadb --defaults-file="$(node_cnf "$1")" --batch --skip-column-names --connect-timeout=5 -e "$2"
}

# slave_field K FIELD: one field of SHOW SLAVE STATUS on node K (empty when not a replica).
slave_field() {
  mariadb --defaults-file="$(node_cnf "$1")" --connect-timeout=5 --vertical -e 'SHOW SLAVE STATUS' |
    awk -v field="$2: " '{ sub(/^ +/, "") } index($0, field) == 1 { print substr($0, length(field) + 1); exit }'
}

check_mariadb() {
  MARIADBD="$(find_bin mariadbd)" || MARIADBD=""
  if [[ -z "$MARIADBD" ]] || ! find_bin mariadb-install-db >/dev/null || ! find_bin mariadb >/dev/null ||
    ! find_bin mariadb-admin >/dev/null; then
    info "MariaDB is not installed"
    "$SLUICE_ROOT/scripts/install-deps.sh" mariadb
    MARIADBD="$(require_bin mariadbd)"
  fi
  local version major minor
  version="$("$MARIADBD" --version | grep -oE 'Ver [0-9]+\.[0-9]+' | cut -d' ' -f2)" ||
    die "cannot tell the version of $MARIADBD"
  major="${version%%.*}"
  minor="${version#*.}"
  if ((major < MIN_MARIADB_MAJOR || (major == MIN_MARIADB_MAJOR && minor < MIN_MARIADB_MINOR))); then
    die "$MARIADBD is MariaDB $version; the sandbox needs $MIN_MARIADB_MAJOR.$MIN_MARIADB_MINOR or later"
  fi
}

# ensure_tls: the sandbox's CA and server certificate (EC P-256, fast to make), once. The files
# are made in a temporary directory and moved into place, so an interrupted run leaves none
# half-written. Without openssl the sandbox simply runs without TLS.
ensure_tls() {
  has_tls && return 0
  if ! command -v openssl >/dev/null 2>&1; then
    warn "openssl is not installed; the sandbox runs without TLS"
    return 0
  fi
  local dir tmp
  dir="$(tls_dir)"
  mkdir -p "$dir" && chmod 700 "$dir" || die "cannot create $dir"
  tmp="$(mktemp -d "$dir/.new.XXXXXX")" || die "cannot create a temporary directory in $dir"
  cat >"$tmp/openssl.cnf" <<'CNF'
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
CNF
  if ! {
    openssl req -x509 -config "$tmp/openssl.cnf" -extensions ca -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
      -nodes -days "$TLS_VALIDITY_DAYS" -subj "/CN=Sluice sandbox CA" -keyout "$tmp/ca-key.pem" -out "$tmp/ca.pem" &&
      openssl req -new -config "$tmp/openssl.cnf" -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -subj "/CN=localhost" -keyout "$tmp/server-key.pem" -out "$tmp/server.csr" &&
      openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca-key.pem" -CAcreateserial \
        -days "$TLS_VALIDITY_DAYS" -extfile "$tmp/openssl.cnf" -extensions server -out "$tmp/server-cert.pem"
  } >"$tmp/openssl.log" 2>&1; then
    cat "$tmp/openssl.log" >&2
    rm -rf "$tmp"
    die "openssl could not make the sandbox's TLS certificates"
  fi
  chmod 600 "$tmp"/*-key.pem
  mv -f "$tmp/ca-key.pem" "$tmp/server-key.pem" "$tmp/server-cert.pem" "$dir/"
  mv -f "$tmp/ca.pem" "$dir/" # last: has_tls looks for it
  rm -rf "$tmp"
  note "made the sandbox's TLS certificates in $dir (CA: $dir/ca.pem)"
}

# tls_cnf_lines: the server's TLS settings, when the certificates exist.
tls_cnf_lines() {
  has_tls || return 0
  printf '# TLS offered to clients (and to Sluice); see %s\n' "$(tls_dir)"
  printf 'ssl_ca=%s/ca.pem\nssl_cert=%s/server-cert.pem\nssl_key=%s/server-key.pem\n' \
    "$(tls_dir)" "$(tls_dir)" "$(tls_dir)"
}

# warn_if_running_without_tls K: a node started before the sandbox had TLS keeps running without it.
warn_if_running_without_tls() {
  has_tls || return 0
  if [[ "$(sql "$1" 'SELECT @@have_ssl' 2>/dev/null)" == DISABLED ]]; then
    note "$(node_name "$1") was started without TLS; it offers TLS after a restart (stop, then start)"
  fi
}

# Running as root, mariadbd refuses to start without an explicit --user.
user_option() {
  if is_root; then echo "--user=root"; fi
}

# start-node --as-replica: MariaDB's semi-synchronous crash recovery is for a server that comes
# back as a replica (a primary restarted as a primary must keep what its replicas may have).
as_replica_cnf() {
  ((AS_REPLICA)) || return 0
  printf '%s\n' "# started with --as-replica: roll back commits no replica acknowledged" "init_rpl_role=SLAVE"
}

write_cnf() {
  local k="$1" read_only=OFF
  ((k == 0)) || read_only=ON
  mkdir -p "$(node_dir "$k")/tmp" || die "cannot create $(node_dir "$k")/tmp"
  cat >"$(node_cnf "$k")" <<EOF
# Generated by scripts/sandbox.sh at every start: edits are overwritten.
[mariadbd]
datadir=$(node_dir "$k")/data
# A node of its own: at start-up MariaDB deletes every #sql* file in its tmpdir, which in a
# shared /tmp are the internal temporary tables other servers are using at that moment.
tmpdir=$(node_dir "$k")/tmp
socket=$(node_socket "$k")
pid-file=$(node_pidfile "$k")
log-error=$(node_log "$k")
port=$(node_port "$k")
bind-address=127.0.0.1
skip-name-resolve
server_id=$(node_server_id "$k")
read_only=$read_only

# GTID replication, every node in domain 0
log_bin=mariadb-bin
log_slave_updates=ON
binlog_format=ROW
relay_log=relay-bin
relay_log_recovery=ON
# a paused or killed primary is noticed in seconds, not a minute
slave_net_timeout=10
$(as_replica_cnf)

# what the tests need: 64 MB BLOBs, many connections
max_allowed_packet=1G
max_connections=2000

# small and fast: a sandbox trades durability against an OS crash for speed
innodb_buffer_pool_size=64M
innodb_log_file_size=64M
innodb_flush_log_at_trx_commit=2
sync_binlog=0
key_buffer_size=8M
aria_pagecache_buffer_size=8M
performance_schema=OFF
character-set-server=utf8mb4
collation-server=utf8mb4_general_ci

$(tls_cnf_lines)

[client]
socket=$(node_socket "$k")
user=root
# Root over the node's own socket: TLS would protect nothing, and its handshake is what times out
# first on a saturated machine.
skip-ssl
EOF
}

# free_port_or_die PORT: the port must be free. A mariadbd left over from a deleted
# copy of this directory (e.g. after 'mvn clean') is recognised by its command line and
# stopped; anything else is an error.
free_port_or_die() {
  local port="$1" pid cmdline
  port_open "$port" || return 0
  pid="$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -n1 | cut -d= -f2)" || pid=""
  if [[ -n "$pid" ]]; then
    cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || cmdline=""
    if [[ "$cmdline" == *mariadbd*"--defaults-file=$DIR/node"* ]]; then
      warn "port $port is held by a leftover sandbox server (pid $pid, directory gone); killing it"
      kill -KILL "$pid"
      wait_for_exit "$pid" 10 || die "pid $pid did not exit"
      return 0
    fi
    die "port $port is in use by pid $pid ($cmdline); choose another --base-port"
  fi
  die "port $port is in use (see: ss -ltnp 'sport = :$port'); choose another --base-port"
}

wait_for_exit() {
  local pid="$1" seconds="$2" deadline
  deadline=$((SECONDS + seconds))
  while [[ -e "/proc/$pid" && "$(process_state "$pid")" != Z ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# launch_node K: starts node K's mariadbd in its own session (so a Ctrl-C in the
# terminal that started it does not reach it), detached from our stdout. setsid execs
# in place (we are not a process group leader), so $! is the server's pid.
declare -a LAUNCHED_PIDS=()
launch_node() {
  local k="$1" user_opt
  user_opt="$(user_option)"
  free_port_or_die "$(node_port "$k")"
  rm -f "$(node_pidfile "$k")"
  # shellcheck disable=SC2086 # user_opt is one word or empty
  setsid "$MARIADBD" --defaults-file="$(node_cnf "$k")" $user_opt </dev/null >>"$(node_log "$k")" 2>&1 &
  LAUNCHED_PIDS[k]=$!
}

# wait_until_ready K: waits until node K answers over its socket; when it exits or
# takes too long, shows the end of its error log.
wait_until_ready() {
  local k="$1" deadline pid="${LAUNCHED_PIDS[$1]:-}"
  deadline=$((SECONDS + NODE_START_TIMEOUT_S))
  until sql "$k" 'SELECT 1' >/dev/null 2>&1; do
    if [[ -n "$pid" ]] && { [[ ! -e "/proc/$pid" ]] || [[ "$(process_state "$pid")" == Z ]]; }; then
      show_log_tail "$k"
      die "$(node_name "$k") (port $(node_port "$k")) exited while starting; see its error log above"
    fi
    if ((SECONDS >= deadline)); then
      show_log_tail "$k"
      die "$(node_name "$k") (port $(node_port "$k")) did not answer within ${NODE_START_TIMEOUT_S}s; see its error log above"
    fi
    sleep 0.1
  done
}

show_log_tail() {
  printf -- '--- last lines of %s ---\n' "$(node_log "$1")" >&2
  tail -n 25 "$(node_log "$1")" >&2 || warn "cannot read $(node_log "$1")"
}

# ---------------------------------------------------------------------------------------
# Replication

attach_replica() {
  local k="$1"
  sql "$k" "STOP SLAVE;
    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$BASE_PORT,
      MASTER_USER='repl', MASTER_PASSWORD='repl',
      MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_DELAY=0;
    START SLAVE;" || die "could not attach $(node_name "$k") to the primary"
}

replication_report() {
  local k="$1"
  note "$(node_name "$k"): IO=$(slave_field "$k" Slave_IO_Running) SQL=$(slave_field "$k" Slave_SQL_Running)" \
    "IO error: '$(slave_field "$k" Last_IO_Error)' SQL error: '$(slave_field "$k" Last_SQL_Error)'"
}

# wait_caught_up: every running, unpaused replica has both threads running and has
# applied the primary's binlog position.
wait_caught_up() {
  local primary_pid target k pid deadline io sql_running waited
  primary_pid="$(node_pid 0)"
  [[ -n "$primary_pid" ]] || die "the primary is not running; start it first (sluice sandbox start --dir $DIR)"
  ! is_paused "$primary_pid" || die "the primary is paused (SIGSTOP); resume it with: kill -CONT $primary_pid"
  target="$(sql 0 'SELECT @@gtid_binlog_pos')" || die "cannot read the primary's GTID position"
  for ((k = 1; k <= REPLICAS; k++)); do
    pid="$(node_pid "$k")"
    if [[ -z "$pid" ]] || is_paused "$pid"; then
      warn "$(node_name "$k") is not running; not waiting for it"
      continue
    fi
    deadline=$((SECONDS + CATCH_UP_TIMEOUT_S))
    while :; do
      io="$(slave_field "$k" Slave_IO_Running)"
      sql_running="$(slave_field "$k" Slave_SQL_Running)"
      [[ "$io" == Yes && "$sql_running" == Yes ]] && break
      if ((SECONDS >= deadline)); then
        replication_report "$k"
        die "$(node_name "$k")'s replication threads are not running"
      fi
      sleep 0.1
    done
    waited="$(sql "$k" "SELECT MASTER_GTID_WAIT('$target', $CATCH_UP_TIMEOUT_S)")"
    if [[ "$waited" != 0 ]]; then
      replication_report "$k"
      die "$(node_name "$k") did not reach the primary's position $target within ${CATCH_UP_TIMEOUT_S}s"
    fi
  done
}

# The accounts and databases, created on the primary and replicated to every replica.
# The initial root accounts other than root@localhost (127.0.0.1, ::1, the host name)
# are dropped, so root is reachable over the socket only.
primary_setup_sql() {
  local host
  while IFS= read -r host; do
    printf "DROP USER 'root'@'%s';\n" "$host"
  done < <(sql 0 "SELECT host FROM mysql.user WHERE user = 'root' AND host <> 'localhost'")
  cat <<'EOF'
ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
CREATE USER 'app'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('app');
CREATE USER 'app'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('app');
GRANT ALL PRIVILEGES ON *.* TO 'app'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'app'@'localhost';
REVOKE READ_ONLY ADMIN ON *.* FROM 'app'@'127.0.0.1';
REVOKE READ_ONLY ADMIN ON *.* FROM 'app'@'localhost';
CREATE USER 'monitor'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('monitor');
GRANT REPLICATION CLIENT, REPLICA MONITOR, PROCESS, SUPER, RELOAD, READ_ONLY ADMIN ON *.* TO 'monitor'@'127.0.0.1';
GRANT SELECT ON mysql.* TO 'monitor'@'127.0.0.1';
CREATE USER 'repl'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('repl');
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
CREATE DATABASE sbtest;
CREATE DATABASE test;
EOF
}

# ---------------------------------------------------------------------------------------
# Commands

initialise() {
  local k n
  n="$(node_count)"
  if [[ -e "$DIR" && ! -f "$(state_file)" ]] && [[ -n "$(ls -A "$DIR")" ]]; then
    die "$DIR exists, is not empty and is not a sandbox; choose another --dir"
  fi
  if [[ -f "$(state_file)" ]]; then
    warn "the previous initialisation of $DIR did not finish; starting it again from scratch"
    stop_all
    for ((k = 0; k < n; k++)); do rm -rf "$(node_dir "$k")"; done
  fi
  for ((k = 0; k < n; k++)); do free_port_or_die "$(node_port "$k")"; done

  info "Initialising a sandbox with 1 primary + $REPLICAS replicas in $DIR (ports $BASE_PORT-$((BASE_PORT + REPLICAS)))"
  mkdir -p "$DIR" || die "cannot create $DIR"
  save_state
  ensure_tls
  for ((k = 0; k < n; k++)); do
    mkdir -p "$(node_dir "$k")"
    write_cnf "$k"
  done
  # One mariadb-install-db, copied to every node before any of them starts: every node
  # begins identical and empty, and the accounts reach the replicas by replication.
  # shellcheck disable=SC2046 # user_option is one word or empty
  if ! mariadb-install-db --defaults-file="$(node_cnf 0)" $(user_option) \
    --auth-root-authentication-method=normal --skip-test-db >"$(node_dir 0)/install.log" 2>&1; then
    tail -n 25 "$(node_dir 0)/install.log" >&2
    die "mariadb-install-db failed; full log: $(node_dir 0)/install.log"
  fi
  for ((k = 1; k < n; k++)); do
    cp -a "$(node_dir 0)/data" "$(node_dir "$k")/data" || die "could not copy the initial datadir to $(node_dir "$k")"
  done

  for ((k = 0; k < n; k++)); do launch_node "$k"; done
  for ((k = 0; k < n; k++)); do wait_until_ready "$k"; done

  info "Creating accounts (app, monitor, repl) and databases (sbtest, test) on the primary"
  sql 0 "$(primary_setup_sql)" || die "creating the accounts on the primary failed"
  info "Attaching $REPLICAS replicas (GTID, slave_pos)"
  for ((k = 1; k < n; k++)); do attach_replica "$k"; done
  wait_caught_up
  touch "$DIR/$READY_MARKER_NAME"
}

restart_stopped() {
  local k n pid
  local -a started=()
  n="$(node_count)"
  ensure_tls
  for ((k = 0; k < n; k++)); do
    write_cnf "$k"
    resume_if_paused "$k"
    pid="$(node_pid "$k")"
    if [[ -z "$pid" ]]; then
      launch_node "$k"
      started+=("$k")
    else
      warn_if_running_without_tls "$k"
    fi
  done
  if ((${#started[@]} == 0)); then
    info "Sandbox in $DIR is already running"
  else
    info "Starting $(for k in "${started[@]}"; do printf '%s ' "$(node_name "$k")"; done)in $DIR"
  fi
  for k in "${started[@]}"; do wait_until_ready "$k"; done
  # A node restarts its replication by itself; a stopped one (STOP SLAVE) is restarted,
  # one without a source (RESET SLAVE ALL) is attached again.
  for ((k = 1; k < n; k++)); do
    if [[ -z "$(slave_field "$k" Master_Port)" ]]; then
      note "$(node_name "$k") has no replication source; attaching it to the primary"
      attach_replica "$k"
    elif [[ "$(slave_field "$k" Slave_SQL_Running)" != Yes || "$(slave_field "$k" Slave_IO_Running)" == No ]]; then
      note "starting replication on $(node_name "$k")"
      sql "$k" 'START SLAVE' || die "START SLAVE failed on $(node_name "$k")"
    fi
  done
  wait_caught_up
}

cmd_start() {
  check_mariadb
  if is_initialised; then
    restart_stopped
  else
    initialise
  fi
  cmd_status
  note "stop it with: ./sluice sandbox stop --dir $DIR"
}

stop_node() {
  local k="$1" pid name
  name="$(node_name "$k")"
  pid="$(node_pid "$k")"
  [[ -n "$pid" ]] || return 0
  kill -CONT "$pid" 2>/dev/null || true # a paused node could not shut down
  if timeout "$SHUTDOWN_TIMEOUT_S" mariadb-admin --defaults-file="$(node_cnf "$k")" --connect-timeout=5 shutdown 2>/dev/null &&
    wait_for_exit "$pid" 10; then
    note "$name stopped"
    return 0
  fi
  warn "$name (pid $pid) did not shut down cleanly; sending SIGTERM"
  kill -TERM "$pid" 2>/dev/null || true # it may have exited meanwhile
  if wait_for_exit "$pid" 30; then
    note "$name stopped"
    return 0
  fi
  warn "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true # checked just below
  wait_for_exit "$pid" 10 || { warn "$name (pid $pid) is still there"; return 1; }
}

# Replicas first (in parallel), then the primary, so no replica logs a lost source.
stop_all() {
  local k failed=0
  local -a jobs=()
  for ((k = 1; k <= REPLICAS; k++)); do
    stop_node "$k" &
    jobs+=($!)
  done
  for k in "${jobs[@]}"; do wait "$k" || failed=1; done
  stop_node 0 || failed=1
  ((failed == 0)) || die "some nodes did not stop (see above)"
}

cmd_stop() {
  [[ -f "$(state_file)" ]] || die "no sandbox in $DIR"
  info "Stopping the sandbox in $DIR"
  stop_all
}

cmd_status() {
  [[ -f "$(state_file)" ]] || die "no sandbox in $DIR"
  local k n pid state read_only gtid io sqlt lag source
  n="$(node_count)"
  printf '%-8s %-6s %-8s %-8s %-9s %-22s %-7s %-10s %-4s %s\n' \
    NODE PORT PID STATE READ_ONLY GTID_CURRENT_POS SOURCE IO SQL BEHIND
  for ((k = 0; k < n; k++)); do
    pid="$(node_pid "$k")"
    read_only=- gtid=- io=- sqlt=- lag=- source=-
    if [[ -z "$pid" ]]; then
      state=stopped pid=-
    elif is_paused "$pid"; then
      state=paused
    else
      state=running
      read -r read_only gtid < <(sql "$k" 'SELECT IF(@@read_only, "ON", "OFF"), @@gtid_current_pos') ||
        state=no-answer
      gtid="${gtid:--}"
      if [[ "$state" == running ]]; then
        source="$(slave_field "$k" Master_Port)"
        if [[ -n "$source" ]]; then
          io="$(slave_field "$k" Slave_IO_Running)"
          sqlt="$(slave_field "$k" Slave_SQL_Running)"
          lag="$(slave_field "$k" Seconds_Behind_Master)"
        fi
        source="${source:--}"
        lag="${lag:--}"
      fi
    fi
    printf '%-8s %-6s %-8s %-8s %-9s %-22s %-7s %-10s %-4s %s\n' \
      "$(node_name "$k")" "$(node_port "$k")" "$pid" "$state" "$read_only" "$gtid" "$source" "$io" "$sqlt" "$lag"
  done
}

cmd_destroy() {
  if [[ ! -e "$DIR" ]]; then
    note "nothing to destroy: $DIR does not exist"
    return 0
  fi
  [[ -f "$(state_file)" ]] || die "$DIR is not a sandbox directory (no $STATE_FILE_NAME); not deleting it"
  stop_all
  rm -rf "$DIR"
  local k
  for ((k = 0; k <= REPLICAS; k++)); do rm -f "$(node_socket "$k")"; done
  info "Deleted $DIR"
}

cmd_start_node() {
  [[ -n "$NODE_ARG" ]] || die "start-node needs a node: primary, roK or nodeK"
  is_initialised || die "no initialised sandbox in $DIR; run 'sluice sandbox start' first"
  check_mariadb
  local k
  k="$(node_index "$NODE_ARG")"
  ensure_tls
  write_cnf "$k"
  resume_if_paused "$k"
  if [[ -n "$(node_pid "$k")" ]]; then
    note "$(node_name "$k") is already running"
    return 0
  fi
  info "Starting $(node_name "$k") (port $(node_port "$k"))"
  launch_node "$k"
  wait_until_ready "$k"
}

cmd_sync() {
  is_initialised || die "no initialised sandbox in $DIR"
  wait_caught_up
}

main() {
  local command="${1:-}"
  [[ -n "$command" ]] || { usage >&2; exit 2; }
  shift
  case "$command" in
    -h | --help | help) usage; return 0 ;;
  esac
  parse_options "$@"
  [[ -n "$NODE_ARG" && "$command" != start-node ]] && die "unexpected argument '$NODE_ARG'"
  ((AS_REPLICA)) && [[ "$command" != start-node ]] && die "--as-replica goes with start-node"
  load_state
  case "$command" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    destroy) cmd_destroy ;;
    start-node) cmd_start_node ;;
    sync) cmd_sync ;;
    *) usage >&2; die "unknown sandbox command '$command'" ;;
  esac
}

main "$@"
