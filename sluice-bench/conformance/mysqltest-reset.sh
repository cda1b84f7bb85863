#!/usr/bin/env bash
# Stands in for mariadb-test (mysqltest) under mariadb-test-run (MYSQL_TEST=this file): puts the
# sandbox back to the state recorded before the run, then runs the real mariadb-test.
#
# Why: against an --extern server, mariadb-test-run neither restarts the server after a failed
# case nor checks what a case left behind, so one failure (a table left over, an account, a file
# written by SELECT ... INTO OUTFILE) would make the cases after it fail too, differently from run
# to run. Resetting before every case keeps each case's result its own.
#
# The reset runs as root over the primary's socket, never through Sluice, and is replicated; it
# then waits until every replica has applied it, so each case starts on nodes that agree.
#
# Environment (set by conformance-mysqltest.sh):
#   CONFORMANCE_PRIMARY_SOCKET   the primary's Unix socket
#   CONFORMANCE_REPLICA_SOCKETS  the replicas' sockets, space-separated
#   CONFORMANCE_DATADIRS         every node's datadir, space-separated
#   CONFORMANCE_BASELINE         a file: lines "db NAME", "user NAME@HOST", "role NAME" present
#                                before the run (names without quotes)
#   CONFORMANCE_MYSQLTEST        the real mariadb-test
#   CONFORMANCE_GLOBALS          the run's globals (name=value,...), set again on the primary
#                                before every case: a case that changed one and failed to put it
#                                back would otherwise change the cases after it
#   CONFORMANCE_STATE_DIR        where it notes the case that ran last, the cases after which
#                                replication was found broken (file replication-breaks) and those
#                                after which a replica lagged more than REPLICA_WAIT_S (replication-lags)
#   CONFORMANCE_REPAIR           1: a broken replica is moved on to the primary's position (when
#                                choosing cases, so one bad case does not spoil the rest); 0: left
#                                as it is, for the run's final check to report
set -euo pipefail

readonly TEST_DB=test
readonly TEST_DB_CHARSET="CHARACTER SET latin1 COLLATE latin1_swedish_ci"
readonly REPLICA_WAIT_S=60
# Files a storage engine keeps for a table or a database; anything else in the test database's
# directory was written by a statement (SELECT ... INTO OUTFILE) and would make DROP DATABASE fail.
readonly ENGINE_FILES='\.(frm|MYD|MYI|MAD|MAI|ibd|opt|TRG|TRN|par|CSV|CSM|ARZ|isl|cfg|MRG)$'

root_sql() { mariadb --no-defaults --socket="$1" -uroot --batch --skip-column-names -e "$2"; }

# Few processes per case: on a busy machine each one costs a noticeable part of a short case.
BASELINE_DBS=("'$TEST_DB'")
BASELINE_USERS=("''")
BASELINE_ROLES=("''")
read_baseline() {
  local kind name
  while read -r kind name; do
    name="'${name//\'/\'\'}'"
    case "$kind" in
      db) BASELINE_DBS+=("$name") ;;
      user) BASELINE_USERS+=("$name") ;;
      role) BASELINE_ROLES+=("$name") ;;
    esac
  done <"$CONFORMANCE_BASELINE"
}

# sql_list LITERAL...: the literals, comma-separated.
sql_list() {
  local IFS=,
  printf '%s' "$*"
}

# One compound statement: drop what the baseline does not have, recreate the test database,
# answer the primary's position for the replicas to wait on.
reset_sql() {
  cat <<SQL
DELIMITER //
BEGIN NOT ATOMIC
  DECLARE done INT DEFAULT 0;
  DECLARE stmt TEXT;
  DECLARE leftovers CURSOR FOR
    SELECT CONCAT('DROP DATABASE IF EXISTS \`', REPLACE(schema_name, '\`', '\`\`'), '\`') FROM information_schema.schemata
      WHERE schema_name NOT IN ($(sql_list "${BASELINE_DBS[@]}"))
    UNION ALL
    SELECT CONCAT('DROP USER IF EXISTS ', QUOTE(user), '@', QUOTE(host)) FROM mysql.user
      WHERE is_role = 'N' AND CONCAT(user, '@', host) NOT IN ($(sql_list "${BASELINE_USERS[@]}"))
    UNION ALL
    SELECT CONCAT('DROP ROLE IF EXISTS ', QUOTE(user)) FROM mysql.user
      WHERE is_role = 'Y' AND user NOT IN ($(sql_list "${BASELINE_ROLES[@]}"));
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN leftovers;
  drop_loop: LOOP
    FETCH leftovers INTO stmt;
    IF done THEN LEAVE drop_loop; END IF;
    EXECUTE IMMEDIATE stmt;
  END LOOP;
  CLOSE leftovers;
END//
DELIMITER ;
DROP DATABASE IF EXISTS \`$TEST_DB\`;
CREATE DATABASE \`$TEST_DB\` $TEST_DB_CHARSET;
${CONFORMANCE_GLOBALS:+SET GLOBAL $CONFORMANCE_GLOBALS;}
SELECT @@gtid_binlog_pos;
SQL
}

remove_stray_files() {
  local datadir file
  for datadir in $CONFORMANCE_DATADIRS; do
    for file in "$datadir/$TEST_DB"/*; do
      [[ -f "$file" && ! "$file" =~ $ENGINE_FILES ]] || continue
      rm -f -- "$file"
    done
  done
}

# The case this run is about to start, from mariadb-test's --test-file=DIR/NAME.test.
case_name() {
  local arg
  for arg in "$@"; do
    if [[ "$arg" == --test-file=* ]]; then
      arg="${arg##*/}"
      printf '%s' "${arg%.test}"
      return
    fi
  done
}

# wait_replicas POSITION: every replica applies the reset. A replica whose threads do not both
# run (SLAVE_RUNNING is OFF) is put down to the case before this one, and repaired when asked.
wait_replicas() {
  local target="$1" socket answer previous=""
  [[ -f "$CONFORMANCE_STATE_DIR/last-case" ]] && previous="$(<"$CONFORMANCE_STATE_DIR/last-case")"
  for socket in $CONFORMANCE_REPLICA_SOCKETS; do
    answer="$(root_sql "$socket" "SELECT IF((SELECT variable_value FROM information_schema.global_status
      WHERE variable_name = 'SLAVE_RUNNING') = 'ON', MASTER_GTID_WAIT('$target', $REPLICA_WAIT_S), 'stopped')")"
    case "$answer" in
      0) ;;
      stopped)
        printf '%s\t%s\n' "${previous:-?}" "$socket" >>"$CONFORMANCE_STATE_DIR/replication-breaks"
        if [[ "${CONFORMANCE_REPAIR:-0}" == 1 ]]; then
          # Skipped to the primary's position, the replica also skips the reset just sent: it
          # gets the reset itself, unlogged, or every later case would break on a missing `test`.
          { echo 'SET sql_log_bin = 0;'; reset_sql; } |
            mariadb --no-defaults --socket="$socket" -uroot --batch --skip-column-names >/dev/null
          root_sql "$socket" "STOP SLAVE; SET GLOBAL gtid_slave_pos = '$target'; START SLAVE;"
        fi
        ;;
      *)
        # A case whose row events keep a replica busy this long makes every later case wait.
        printf '%s\t%s\n' "${previous:-?}" "$socket" >>"$CONFORMANCE_STATE_DIR/replication-lags"
        echo "mysqltest-reset: a replica ($socket) did not reach $target within ${REPLICA_WAIT_S}s" >&2
        ;;
    esac
  done
}

read_baseline
remove_stray_files
wait_replicas "$(reset_sql | mariadb --no-defaults --socket="$CONFORMANCE_PRIMARY_SOCKET" -uroot --batch --skip-column-names)"
case_name "$@" >"$CONFORMANCE_STATE_DIR/last-case"
exec "$CONFORMANCE_MYSQLTEST" "$@"
