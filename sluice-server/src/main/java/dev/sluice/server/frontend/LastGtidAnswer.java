package dev.sluice.server.frontend;

import dev.sluice.protocol.response.ColumnDefinition;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code SELECT sluice_last_gtid()}: the GTID of the session's last commit, its consistency token,
 * answered by Sluice in the text and the binary protocol alike. NULL before the first commit.
 */
final class LastGtidAnswer {
    /** Wide enough for a MariaDB GTID (domain-server-sequence) and a MySQL uuid:number. */
    private static final int GTID_WIDTH = 64;
    static final String COLUMN = "sluice_last_gtid()";

    /** The one column, named as the statement names it ({@code SELECT sluice_last_gtid() AS token}). */
    static List<ColumnDefinition> columns(Statement statement) {
        return List.of(ColumnDefinition.varString(column(statement), GTID_WIDTH));
    }

    static String column(Statement statement) {
        return statement.localAnswerColumn().orElse(COLUMN);
    }

    private LastGtidAnswer() {
    }

    /** The one row of the answer, for {@code routing}'s session. */
    static List<String> row(RoutingSession routing) {
        List<String> row = new ArrayList<>(1);
        row.add(routing.lastGtid().map(Object::toString).orElse(null));
        return row;
    }
}
