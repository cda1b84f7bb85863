package dev.sluice.server.consistency;

import dev.sluice.routing.gtid.GtidFlavor;
import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.server.backend.QueryResult;
import java.time.Duration;
import java.util.Locale;

/**
 * The server's own wait for a GTID position: {@code MASTER_GTID_WAIT} on MariaDB,
 * {@code WAIT_FOR_EXECUTED_GTID_SET} on MySQL. Both return as soon as the position is applied,
 * which makes them cheaper and more precise than polling.
 */
public final class GtidWait {
    private static final double MILLIS_PER_SECOND = 1000.0;

    private GtidWait() {
    }

    /** The query that waits for {@code position} at most {@code timeout}. */
    public static String query(GtidPosition position, Duration timeout, String serverVersion) {
        String pos = position.toString();
        if (!pos.matches("[0-9A-Fa-f:,\\-\\s]*")) {
            throw new IllegalArgumentException("not a GTID position: " + pos);
        }
        String seconds = String.format(Locale.ROOT, "%.3f", timeout.toMillis() / MILLIS_PER_SECOND);
        boolean mariaDb = position.flavor() == GtidFlavor.MARIADB
                || serverVersion.toLowerCase(Locale.ROOT).contains("mariadb");
        return mariaDb ? "SELECT MASTER_GTID_WAIT('" + pos + "', " + seconds + ") AS w"
                : "SELECT WAIT_FOR_EXECUTED_GTID_SET('" + pos + "', " + seconds + ") AS w";
    }

    /** Whether the wait's answer says the position was reached (0 on both servers). */
    public static boolean reached(QueryResult result) {
        return !result.isError() && result.first("w").map("0"::equals).orElse(false);
    }
}
