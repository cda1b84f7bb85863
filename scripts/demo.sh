#!/usr/bin/env bash
# ./sluice demo: everything needed to try Sluice on this machine, in one command.
#   1. installs what is missing (MariaDB, sysbench; Java and Maven if absent)
#   2. builds the proxy when its jar is missing or older than the sources
#   3. starts (or reuses) a 1 primary + 2 replica sandbox on ports 3311-3313
#   4. creates a small demo database
#   5. runs Sluice in the foreground with examples/sluice.yaml; Ctrl-C stops it and
#      leaves the sandbox running
# With --cluster, step 5 is cluster mode instead (scripts/demo-cluster.sh): etcd, three Sluice
# instances sharing examples/sluice.yaml through it, and HAProxy in front of them.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly DEMO_DIR="$SLUICE_ROOT/.sandbox/demo"
readonly DEMO_REPLICAS=2
readonly DEMO_BASE_PORT=3311
readonly DEMO_CONFIG="$SLUICE_ROOT/examples/sluice.yaml"

cluster=0
case "${1:-}" in
  "") ;;
  --cluster) cluster=1; shift ;;
  -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
(($# == 0)) || die "demo takes no arguments but --cluster (got: $*)"

sandbox() {
  "$SLUICE_ROOT/scripts/sandbox.sh" "$@" --replicas "$DEMO_REPLICAS" --base-port "$DEMO_BASE_PORT" --dir "$DEMO_DIR"
}

info "Checking dependencies"
if ((cluster == 1)); then
  "$SLUICE_ROOT/scripts/install-deps.sh" mariadb sysbench build etcd haproxy
else
  "$SLUICE_ROOT/scripts/install-deps.sh" mariadb sysbench build
fi
build_if_needed

sandbox start

info "Creating the demo database 'demo' on the primary"
mariadb --defaults-file="$DEMO_DIR/node0/my.cnf" --batch -e "
  CREATE DATABASE IF NOT EXISTS demo;
  CREATE TABLE IF NOT EXISTS demo.items (
    id INT PRIMARY KEY,
    name VARCHAR(64) NOT NULL,
    price DECIMAL(10, 2) NOT NULL
  );
  INSERT IGNORE INTO demo.items VALUES
    (1, 'sluice gate', 1200.00), (2, 'weir board', 85.50), (3, 'lock paddle', 230.00),
    (4, 'penstock', 990.00), (5, 'culvert grate', 145.25);" ||
  die "could not create the demo data on the primary (port $DEMO_BASE_PORT)"
sandbox sync

if ((cluster == 1)); then
  exec "$SLUICE_ROOT/scripts/demo-cluster.sh" "$DEMO_CONFIG" "$DEMO_DIR"
fi

cat <<EOF

Sluice is starting with $DEMO_CONFIG.

  Read-write endpoint (writes to the primary, reads spread over the replicas):
      mariadb -h127.0.0.1 -P6033 -uapp -papp demo
  Read-only endpoint (each connection on one replica):
      mariadb -h127.0.0.1 -P6034 -uapp -papp demo
  Try:  SELECT @@server_id, COUNT(*) FROM items;   (primary = 1, replicas = 2, 3)
  Dashboard and admin API:  http://127.0.0.1:8033/   (./sluice describe-proxy)

Press Ctrl-C to stop Sluice; the sandbox keeps running.

EOF

# Run in the foreground, not exec: after Ctrl-C we still say how to stop the sandbox.
# The sandbox's servers run in their own sessions, so the terminal's SIGINT reaches
# only Sluice (and this script, which waits for it).
trap ':' INT
read -r -a java_opts <<<"${SLUICE_JAVA_OPTS:-}"
status=0
java "${java_opts[@]}" -jar "$SLUICE_JAR" run --config "$DEMO_CONFIG" || status=$?
trap - INT

printf '\nSluice stopped (exit status %s). The sandbox is still running:\n' "$status"
printf '    ./sluice sandbox status --dir .sandbox/demo\n'
printf '    ./sluice sandbox stop --dir .sandbox/demo\n'
# 130 = terminated by Ctrl-C: the normal way to end the demo.
if ((status != 0 && status != 130)); then
  exit "$status"
fi
