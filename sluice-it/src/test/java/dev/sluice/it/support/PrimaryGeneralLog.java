package dev.sluice.it.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The primary's general log, to a table, for the span of one check: what the primary was asked,
 * by which connection. It is the primary's own record, so a statement Sluice sent there cannot
 * hide from it. Turned off (and emptied) again by {@link #close()}.
 */
public final class PrimaryGeneralLog implements AutoCloseable {
    /** One general-log row: the server thread that ran it, its kind (Query, Connect, …) and text. */
    public record Entry(long threadId, String command, String argument) {
    }

    private final Connection admin;
    private final String outputBefore;
    private final String enabledBefore;

    private PrimaryGeneralLog(Connection admin, String outputBefore, String enabledBefore) {
        this.admin = admin;
        this.outputBefore = outputBefore;
        this.enabledBefore = enabledBefore;
    }

    public static PrimaryGeneralLog start(SandboxCluster cluster) throws SQLException {
        Connection admin = cluster.connect(cluster.primary());
        String output = cluster.queryString(cluster.primary(), "SELECT @@global.log_output");
        String enabled = cluster.queryString(cluster.primary(), "SELECT @@global.general_log");
        try (Statement s = admin.createStatement()) {
            s.execute("SET SESSION sql_log_off = 1");
            s.execute("SET SESSION sql_log_bin = 0");
            s.execute("TRUNCATE TABLE mysql.general_log");
            s.execute("SET GLOBAL log_output = 'TABLE'");
            s.execute("SET GLOBAL general_log = 1");
        }
        return new PrimaryGeneralLog(admin, output, enabled);
    }

    /** Every row logged so far, in the order the primary logged them. */
    public List<Entry> entries() throws SQLException {
        List<Entry> out = new ArrayList<>();
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery("SELECT thread_id, command_type, CONVERT(argument USING utf8mb4) "
                        + "FROM mysql.general_log")) {
            while (rs.next()) {
                out.add(new Entry(rs.getLong(1), rs.getString(2), rs.getString(3)));
            }
        }
        return out;
    }

    @Override
    public void close() throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("SET GLOBAL general_log = " + enabledBefore);
            s.execute("SET GLOBAL log_output = '" + outputBefore + "'");
            s.execute("TRUNCATE TABLE mysql.general_log");
        } finally {
            admin.close();
        }
    }
}
