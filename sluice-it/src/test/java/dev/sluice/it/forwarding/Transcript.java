package dev.sluice.it.forwarding;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What a client saw, step by step, as text: result metadata and rows, update counts, generated
 * keys, warnings and errors. The same scenario run directly against the primary and through
 * Sluice must leave the same transcript.
 */
final class Transcript {
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private final List<String> lines = new ArrayList<>();

    List<String> lines() {
        return lines;
    }

    void add(String line) {
        lines.add(line);
    }

    /** Runs a step; an SQLException becomes a line (code, state, message) instead of a failure. */
    void step(String name, Step step) {
        lines.add("## " + name);
        try {
            step.run();
        } catch (SQLException e) {
            lines.add("! SQLException " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage());
        } catch (Exception e) {
            lines.add("! " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    void resultSet(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        StringBuilder head = new StringBuilder("columns:");
        for (int i = 1; i <= md.getColumnCount(); i++) {
            head.append(' ').append(md.getColumnLabel(i)).append('(').append(md.getColumnTypeName(i)).append('/')
                    .append(md.getColumnType(i)).append(',').append(md.getPrecision(i)).append(',')
                    .append(md.getScale(i)).append(md.isNullable(i) == ResultSetMetaData.columnNoNulls ? ",nn" : "")
                    .append(')');
        }
        lines.add(head.toString());
        int count = 0;
        while (rs.next()) {
            count++;
            StringBuilder row = new StringBuilder("row:");
            for (int i = 1; i <= md.getColumnCount(); i++) {
                row.append(" | ").append(value(rs, i));
            }
            lines.add(row.toString());
        }
        lines.add("rows: " + count);
    }

    private static String value(ResultSet rs, int i) throws SQLException {
        Object o = rs.getObject(i);
        if (o == null) {
            return "NULL";
        }
        if (o instanceof byte[] bytes) {
            return "0x" + HexFormat.of().formatHex(bytes);
        }
        return o.getClass().getSimpleName() + ":" + o;
    }

    /** Every result of an {@code execute}: result sets and update counts, in order. */
    void allResults(Statement s, boolean firstIsResultSet) throws SQLException {
        boolean isRs = firstIsResultSet;
        for (int guard = 0; guard < 100; guard++) {
            if (isRs) {
                try (ResultSet rs = s.getResultSet()) {
                    resultSet(rs);
                }
            } else {
                int count = s.getUpdateCount();
                if (count == -1) {
                    return;
                }
                lines.add("update count: " + count);
            }
            isRs = s.getMoreResults();
        }
        lines.add("! more than 100 results");
    }

    void generatedKeys(Statement s) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = s.getGeneratedKeys()) {
            while (rs.next()) {
                keys.add(rs.getString(1));
            }
        }
        lines.add("generated keys: " + keys);
    }

    void updateCounts(int[] counts) {
        lines.add("update counts: " + Arrays.toString(counts));
    }

    void warnings(SQLWarning w) {
        List<String> all = new ArrayList<>();
        for (SQLWarning x = w; x != null; x = x.getNextWarning()) {
            all.add(x.getErrorCode() + " " + x.getSQLState() + " " + x.getMessage());
        }
        lines.add("warnings: " + all);
    }

    @Override
    public String toString() {
        return String.join("\n", lines);
    }
}
