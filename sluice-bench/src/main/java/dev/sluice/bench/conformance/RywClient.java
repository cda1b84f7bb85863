package dev.sluice.bench.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Read-your-writes client for JDBC, with the protocol of {@code sluice-bench/conformance/clients/README.md}:
 *
 * <pre>
 * java -cp benchmarks.jar dev.sluice.bench.conformance.RywClient MODE URL USER PASSWORD KEY COUNT RESULT_FILE
 * </pre>
 *
 * The URL chooses the driver ({@code jdbc:mysql:} MySQL Connector/J, {@code jdbc:mariadb:} MariaDB
 * Connector/J) and carries no options: each driver runs with its defaults.
 */
public final class RywClient {
    private static final String WRITE = "UPDATE ryw SET v = ? WHERE k = ?";
    private static final int USAGE_ERROR = 2;

    private final String url;
    private final String user;
    private final String password;
    private final String key;
    private final ReadTally tally = new ReadTally();

    private RywClient(String url, String user, String password, String key) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.key = key;
    }

    public static void main(String[] args) throws IOException, SQLException {
        if (args.length != 7) {
            System.err.println("usage: RywClient MODE URL USER PASSWORD KEY COUNT RESULT_FILE");
            System.exit(USAGE_ERROR);
        }
        RywClient client = new RywClient(args[1], args[2], args[3], args[4]);
        int count = Integer.parseInt(args[5]);
        switch (args[0]) {
            case "session" -> client.pairs(count, false);
            case "global" -> client.pairs(count, true);
            case "token-write" -> client.tokenWrite(count);
            case "token-read" -> client.tokenRead();
            default -> {
                System.err.println("java: unknown mode '" + args[0] + "'");
                System.exit(USAGE_ERROR);
            }
        }
        Files.writeString(Path.of(args[6]), client.tally.line());
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** Write then read, on one connection or (crossSession) on two. */
    private void pairs(int count, boolean crossSession) throws SQLException {
        try (Connection writer = connect(); Connection second = crossSession ? connect() : null) {
            Connection reader = crossSession ? second : writer;
            for (long i = 1; i <= count; i++) {
                try {
                    write(writer, i);
                } catch (SQLException e) {
                    tally.fail(e);
                    continue;
                }
                tally.read(reader, "", key, i, !crossSession);
            }
        }
    }

    private void tokenWrite(int count) throws SQLException, IOException {
        BufferedReader answers = stdin();
        PrintStream out = System.out;
        try (Connection connection = connect()) {
            for (long i = 1; i <= count; i++) {
                String token = "-";
                try {
                    write(connection, i);
                    String gtid = lastGtid(connection);
                    if (gtid == null || gtid.isEmpty()) {
                        tally.noToken();
                    } else {
                        token = gtid;
                    }
                } catch (SQLException e) {
                    tally.fail(e);
                }
                out.println(i + " " + token);
                out.flush();
                if (answers.readLine() == null) {
                    break;
                }
            }
            out.println("end");
            out.flush();
        }
    }

    private void tokenRead() throws SQLException, IOException {
        BufferedReader tokens = stdin();
        try (Connection connection = connect()) {
            String line;
            while ((line = tokens.readLine()) != null && !line.trim().equals("end")) {
                String[] fields = line.trim().split(" ");
                boolean none = fields[1].equals("-");
                if (none) {
                    tally.noToken();
                }
                tally.read(connection, none ? "" : "/*CONSISTENT_WITH=" + fields[1] + "*/ ", key,
                        Long.parseLong(fields[0]), false);
                System.out.println("ok");
                System.out.flush();
            }
        }
    }

    private void write(Connection connection, long value) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(WRITE)) {
            update.setLong(1, value);
            update.setString(2, key);
            update.executeUpdate();
        }
    }

    private static String lastGtid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT sluice_last_gtid()")) {
            return row.next() ? row.getString(1) : null;
        }
    }

    private static BufferedReader stdin() {
        return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }
}
