package dev.sluice.bench.conformance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Counts reads, stale reads, errors and missing tokens, and which server answered each read. */
final class ReadTally {
    static final String READ = "SELECT v, @@server_id FROM ryw WHERE k = ?";

    private int reads;
    private int stale;
    private int errors;
    private int noToken;
    private final Map<Long, Integer> servers = new TreeMap<>();

    /** A prepared read, or with a hint a plain statement carrying it (as the token's users send it). */
    void read(Connection connection, String hint, String key, long expected, boolean exact) {
        try {
            long value;
            long serverId;
            if (hint.isEmpty()) {
                try (PreparedStatement read = connection.prepareStatement(READ)) {
                    read.setString(1, key);
                    try (ResultSet row = read.executeQuery()) {
                        row.next();
                        value = row.getLong(1);
                        serverId = row.getLong(2);
                    }
                }
            } else {
                try (Statement read = connection.createStatement();
                        ResultSet row = read.executeQuery(hint + READ.replace("?", "'" + key + "'"))) {
                    row.next();
                    value = row.getLong(1);
                    serverId = row.getLong(2);
                }
            }
            reads++;
            servers.merge(serverId, 1, Integer::sum);
            if (exact ? value != expected : value < expected) {
                stale++;
            }
        } catch (SQLException e) {
            fail(e);
        }
    }

    void fail(SQLException e) {
        errors++;
        System.err.println("java: " + e.getMessage());
    }

    void noToken() {
        noToken++;
    }

    String line() {
        String ids = servers.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
        return "reads=" + reads + " stale=" + stale + " errors=" + errors + " no_token=" + noToken + " servers=" + ids
                + "\n";
    }
}
