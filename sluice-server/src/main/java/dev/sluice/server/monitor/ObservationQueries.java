package dev.sluice.server.monitor;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.server.backend.QueryResult;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The monitor's queries, and how their answers read on MariaDB and on MySQL. One variables query
 * and one replication-status query per check; column names differ between servers and versions
 * ({@code Slave_*} / {@code Replica_*}, {@code Seconds_Behind_Master} / {@code _Source}).
 */
final class ObservationQueries {
    static final String MARIADB_VARIABLES = "SELECT @@read_only AS ro, @@gtid_current_pos AS pos, @@version AS v";
    static final String MYSQL_VARIABLES = "SELECT @@read_only AS ro, @@gtid_executed AS pos, @@version AS v";
    static final String MARIADB_REPLICATION = "SHOW ALL SLAVES STATUS";
    static final String MYSQL_REPLICATION = "SHOW REPLICA STATUS";

    private ObservationQueries() {
    }

    static boolean isMariaDb(String serverVersion) {
        return serverVersion.toLowerCase(Locale.ROOT).contains("mariadb");
    }

    static NodeObservation read(QueryResult variables, QueryResult replication) {
        String ro = variables.first("ro").orElse("0");
        boolean readOnly = ro.equals("1") || ro.equalsIgnoreCase("ON");
        Optional<GtidPosition> position = variables.first("pos").flatMap(GtidPosition::parse);
        String version = variables.first("v").orElse("");
        List<List<String>> rows = replication.rows();
        if (rows.isEmpty()) {
            return new NodeObservation(readOnly, position, false, false, false, OptionalLong.empty(), "", version);
        }
        // Several sources (multi-source replication): replication is healthy only if all are.
        boolean io = true;
        boolean sql = true;
        long behind = 0;
        boolean behindKnown = true;
        StringBuilder errors = new StringBuilder();
        for (List<String> row : rows) {
            io &= "Yes".equalsIgnoreCase(col(replication, row, "Slave_IO_Running", "Replica_IO_Running"));
            sql &= "Yes".equalsIgnoreCase(col(replication, row, "Slave_SQL_Running", "Replica_SQL_Running"));
            String sbm = col(replication, row, "Seconds_Behind_Master", "Seconds_Behind_Source");
            if (sbm == null || sbm.isEmpty()) {
                behindKnown = false;
            } else {
                try {
                    behind = Math.max(behind, Long.parseLong(sbm));
                } catch (NumberFormatException e) {
                    behindKnown = false;
                }
            }
            for (String errorColumn : new String[] {"Last_IO_Error", "Last_SQL_Error"}) {
                String e = replication.value(row, errorColumn);
                if (e != null && !e.isEmpty()) {
                    errors.append(errors.length() == 0 ? "" : "; ").append(e);
                }
            }
        }
        return new NodeObservation(readOnly, position, true, io, sql,
                behindKnown ? OptionalLong.of(behind) : OptionalLong.empty(), errors.toString(), version);
    }

    private static String col(QueryResult r, List<String> row, String name, String alternative) {
        String v = r.value(row, name);
        return v != null ? v : r.value(row, alternative);
    }
}
