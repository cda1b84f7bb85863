# shellcheck shell=bash
# The sandbox's nodes made ready for MariaDB's test suite and put back afterwards, and the
# environment of the per-case reset (sluice-bench/conformance/mysqltest-reset.sh). Sourced by
# conformance-mysqltest.sh after lib.sh and conformance-common.sh; uses its SUITE_USER,
# SUITE_HOST, SANDBOX_DIR, REPLICAS, BENCH_WORK, RESET_WRAPPER and MYSQLTEST_BIN.

# mtr's own server defaults (include/default_mysqld.cnf and its bootstrap) that the sandbox does
# not share; set as globals on every node for the run, so the recorded results apply.
readonly MTR_GLOBALS=(character_set_server=latin1 collation_server=latin1_swedish_ci
  default_storage_engine=MyISAM log_bin_trust_function_creators=1 max_heap_table_size=1048576
  sort_buffer_size=262144 use_stat_tables=preferably histogram_type=json_hb
  binlog_direct_non_transactional_updates=ON)
readonly TEST_DB_CHARSET="CHARACTER SET latin1 COLLATE latin1_swedish_ci"
# What mtr's bootstrap gives the cases (include/mtr_warnings.sql): mtr.add_suppression, which
# cases call to silence server-log warnings; the server log is not checked here, so it only keeps
# the patterns.
readonly MTR_DB_SQL="CREATE DATABASE IF NOT EXISTS mtr;
  CREATE TABLE IF NOT EXISTS mtr.test_suppressions (pattern VARCHAR(255)) ENGINE=MyISAM;
  CREATE OR REPLACE DEFINER=root@localhost PROCEDURE mtr.add_suppression(pattern VARCHAR(255))
    INSERT INTO mtr.test_suppressions (pattern) VALUES (pattern);"

# Globals that cases change and put back only at their end (main.packet sets max_allowed_packet to
# its minimum): a case that fails before its end would leave every later statement of the run
# larger than that refused (ER_NET_PACKET_TOO_LARGE). The reset sets them back to the primary's
# values before the run, with the run's globals.
readonly RESTORED_GLOBALS=(max_allowed_packet net_buffer_length)
readonly SQL_THREAD_RESTART_TIMEOUT_S=60
SAVED_GLOBALS=()

global_names() { local g; for g in "${MTR_GLOBALS[@]}"; do printf '%s\n' "${g%%=*}"; done; }

# set_globals K ASSIGNMENT...: SET GLOBAL on node K; a replica's applier restarts so that it
# applies with the same defaults (its thread took the globals when it started).
set_globals() {
  local k="$1"
  shift
  local IFS=,
  sandbox_root_sql "$SANDBOX_DIR" "$k" "SET GLOBAL $*" || die "SET GLOBAL failed on node $k"
  if ((k > 0)); then
    # STOP SLAVE waits for the event being applied; a replica deep in a long one (a case's row
    # events on a table without a key) would hold the run here, so the wait is bounded.
    timeout "$SQL_THREAD_RESTART_TIMEOUT_S" mariadb --defaults-file="$SANDBOX_DIR/node$k/my.cnf" \
      --connect-timeout=5 -e 'STOP SLAVE SQL_THREAD; START SLAVE SQL_THREAD' ||
      warn "node $k's SQL thread did not restart within ${SQL_THREAD_RESTART_TIMEOUT_S}s; restart it by hand" \
        "(STOP SLAVE SQL_THREAD; START SLAVE SQL_THREAD) so it applies with the globals just set"
  fi
}

prepare_nodes() {
  local k name value
  local -a saved
  info "Giving every node mtr's server defaults for the run (${MTR_GLOBALS[*]})"
  for ((k = 0; k <= REPLICAS; k++)); do
    saved=()
    while IFS= read -r name; do
      value="$(sandbox_root_sql "$SANDBOX_DIR" "$k" "SELECT @@GLOBAL.$name")"
      if [[ "$value" =~ ^[0-9]+$ ]]; then saved+=("$name=$value"); else saved+=("$name='$value'"); fi
    done < <(global_names)
    SAVED_GLOBALS[k]="${saved[*]}"
    set_globals "$k" "${MTR_GLOBALS[@]}"
  done
  sandbox_root_sql "$SANDBOX_DIR" 0 "CREATE USER IF NOT EXISTS '$SUITE_USER'@'$SUITE_HOST';
    GRANT ALL PRIVILEGES ON *.* TO '$SUITE_USER'@'$SUITE_HOST' WITH GRANT OPTION;
    REVOKE READ_ONLY ADMIN ON *.* FROM '$SUITE_USER'@'$SUITE_HOST';
    DROP DATABASE IF EXISTS test; CREATE DATABASE test $TEST_DB_CHARSET; $MTR_DB_SQL" ||
    die "could not prepare the suite's account and database on the primary"
}

restore_nodes() {
  local k
  local -a saved
  for ((k = 0; k <= REPLICAS; k++)); do
    [[ -n "${SAVED_GLOBALS[k]:-}" ]] || continue
    read -r -a saved <<<"${SAVED_GLOBALS[k]}"
    set_globals "$k" "${saved[@]}" || warn "could not restore node $k's globals"
  done
}

# The objects present before the run; the reset before each case drops anything else.
write_baseline() {
  sandbox_root_sql "$SANDBOX_DIR" 0 "SELECT CONCAT('db ', schema_name) FROM information_schema.schemata;
    SELECT CONCAT('user ', user, '@', host) FROM mysql.user WHERE is_role = 'N';
    SELECT CONCAT('role ', user) FROM mysql.user WHERE is_role = 'Y'" >"$BENCH_WORK/baseline.txt"
}

export_reset_environment() {
  local k sockets="" datadirs=""
  for ((k = 1; k <= REPLICAS; k++)); do sockets+="$(sandbox_socket "$k") "; done
  for ((k = 0; k <= REPLICAS; k++)); do datadirs+="$SANDBOX_DIR/node$k/data "; done
  export CONFORMANCE_PRIMARY_SOCKET CONFORMANCE_REPLICA_SOCKETS="$sockets" CONFORMANCE_DATADIRS="$datadirs"
  CONFORMANCE_PRIMARY_SOCKET="$(sandbox_socket 0)"
  export CONFORMANCE_BASELINE="$BENCH_WORK/baseline.txt" CONFORMANCE_MYSQLTEST="$MYSQLTEST_BIN"
  export MYSQL_TEST="$RESET_WRAPPER"
  local name
  local -a globals=("${MTR_GLOBALS[@]}")
  for name in "${RESTORED_GLOBALS[@]}"; do
    globals+=("$name=$(sandbox_root_sql "$SANDBOX_DIR" 0 "SELECT @@GLOBAL.$name")")
  done
  CONFORMANCE_GLOBALS="$(IFS=,; printf '%s' "${globals[*]}")"
  export CONFORMANCE_GLOBALS
}

sandbox_socket() { sed -n 's/^socket=//p' "$SANDBOX_DIR/node$1/my.cnf" | head -n 1; }
