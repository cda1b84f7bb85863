package dev.sluice.it.security;

import static dev.sluice.protocol.Command.COM_QUIT;
import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The network fuzz test's seed corpus: packets of real clients — MariaDB Connector/J, MySQL
 * Connector/J, the {@code mariadb} CLI, and the bare {@link RawMysqlClient} for the rarer commands —
 * captured on the wire through a {@link RecordingRelay} in front of Sluice. Every packet is kept
 * with its 4-byte header, as sent.
 *
 * <p>The sessions only read (no table is touched, so no fuzzed variant can take a lock) and run as
 * a user with no privilege at all, so that a mutation turning into SHUTDOWN, REFRESH or a KILL of
 * someone else's session is refused by the server or by Sluice, as it would be for any client.
 *
 * @param logins        connection-phase packets: HandshakeResponse41 and auth-switch answers
 * @param sslRequests   SSLRequest packets
 * @param clientHellos  the TLS ClientHello record sent right after an SSLRequest
 * @param sessions      the commands of each captured session, in order (COM_QUIT left out)
 */
record FuzzSeeds(List<byte[]> logins, List<byte[]> sslRequests, List<byte[]> clientHellos,
        List<List<byte[]>> sessions) {
    static final String USER = "it_fuzz";
    static final String PASSWORD = "it-fuzz-pw";
    private static final int CLIENT_SSL = 0x800;
    private static final int SSL_REQUEST_LENGTH = 32;
    private static final int TLS_RECORD_HEADER = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Runs the capture sessions through a relay in front of {@code sluicePort} and splits what they sent. */
    static FuzzSeeds capture(int sluicePort) throws Exception {
        List<byte[]> recordings;
        try (RecordingRelay relay = new RecordingRelay(sluicePort)) {
            mariadbConnector(relay.port());
            mysqlConnector(relay.port());
            mariadbConnectorOverTls(relay.port());
            rawClient(relay.port());
            mariadbCli(relay.port());
            // The relay forwards asynchronously: let the last bytes land before reading the recordings.
            Thread.sleep(200);
            recordings = relay.recordings();
        }
        FuzzSeeds seeds = new FuzzSeeds(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        recordings.forEach(seeds::split);
        assertThat(seeds.logins()).as("captured logins").hasSizeGreaterThanOrEqualTo(4);
        assertThat(seeds.sslRequests()).as("captured SSLRequests").isNotEmpty();
        assertThat(seeds.clientHellos()).as("captured TLS ClientHellos").isNotEmpty();
        assertThat(seeds.sessions()).as("captured command sessions").hasSizeGreaterThanOrEqualTo(4);
        return seeds;
    }

    int commandCount() {
        return sessions.stream().mapToInt(List::size).sum();
    }

    /** Splits one connection's client bytes into login packets, then commands (or TLS after an SSLRequest). */
    private void split(byte[] stream) {
        List<byte[]> commands = new ArrayList<>();
        boolean login = true;
        int pos = 0;
        while (pos + HEADER_SIZE <= stream.length) {
            int length = (stream[pos] & 0xFF) | (stream[pos + 1] & 0xFF) << 8 | (stream[pos + 2] & 0xFF) << 16;
            int seq = stream[pos + 3] & 0xFF;
            if (pos + HEADER_SIZE + length > stream.length) {
                break;
            }
            byte[] packet = Arrays.copyOfRange(stream, pos, pos + HEADER_SIZE + length);
            pos += HEADER_SIZE + length;
            if (login && seq == 0) {
                login = false;
            }
            if (login) {
                if (length == SSL_REQUEST_LENGTH && isSslRequest(packet)) {
                    sslRequests.add(packet);
                    clientHello(stream, pos);
                    return;
                }
                logins.add(packet);
            } else if (length > 0 && (packet[HEADER_SIZE] & 0xFF) != COM_QUIT) {
                commands.add(packet);
            }
        }
        if (!commands.isEmpty()) {
            sessions.add(commands);
        }
    }

    private static boolean isSslRequest(byte[] packet) {
        int caps = (packet[HEADER_SIZE] & 0xFF) | (packet[HEADER_SIZE + 1] & 0xFF) << 8;
        return (caps & CLIENT_SSL) != 0;
    }

    private void clientHello(byte[] stream, int pos) {
        if (pos + TLS_RECORD_HEADER > stream.length) {
            return;
        }
        int length = (stream[pos + 3] & 0xFF) << 8 | (stream[pos + 4] & 0xFF);
        int end = Math.min(stream.length, pos + TLS_RECORD_HEADER + length);
        clientHellos.add(Arrays.copyOfRange(stream, pos, end));
    }

    // ---- the capture sessions ----

    private static String options(String... more) {
        return "user=" + USER + "&password=" + PASSWORD + "&connectTimeout=30000&socketTimeout=60000&"
                + String.join("&", more);
    }

    private static void mariadbConnector(int port) throws SQLException {
        String url = "jdbc:mariadb://127.0.0.1:" + port + "/?" + options("useServerPrepStmts=true", "sslMode=disable");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            readAll(s, "SELECT 1");
            readAll(s, "SELECT @@version_comment, CONNECTION_ID(), NOW(6), 'fuzz' AS word, NULL");
            readAll(s, "SHOW VARIABLES LIKE 'max_allowed%'");
            s.execute("DO 1");
            s.execute("SET @fz = 1");
            readAll(s, "SELECT @fz, @@session.sql_mode");
            readAll(s, "SELECT COLLATION_NAME, ID FROM information_schema.COLLATIONS LIMIT 5");
            c.setAutoCommit(false);
            readAll(s, "SELECT 2");
            c.commit();
            c.setAutoCommit(true);
            c.setCatalog("information_schema");
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (PreparedStatement p = c.prepareStatement("SELECT ? + ?, ?, ?")) {
                p.setInt(1, 20);
                p.setLong(2, 22L);
                p.setString(3, "a string parameter");
                p.setBytes(4, new byte[] {0, 1, 2, (byte) 0xFF});
                readAll(p);
                p.setNull(1, java.sql.Types.INTEGER);
                readAll(p);
            }
            try (PreparedStatement p = c.prepareStatement("DO ?")) {
                for (int i = 0; i < 3; i++) {
                    p.setInt(1, i);
                    p.addBatch();
                }
                p.executeBatch();
            }
            assertThat(c.isValid(30)).isTrue();
            c.unwrap(org.mariadb.jdbc.Connection.class).reset();
            readAll(s, "SELECT 3");
        }
    }

    private static void mysqlConnector(int port) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + port + "/?" + options("useServerPrepStmts=true", "useCursorFetch=true",
                "defaultFetchSize=2", "sslMode=DISABLED", "allowPublicKeyRetrieval=true");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            readAll(s, "SELECT 1, 'x'");
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT CHARACTER_SET_NAME, MAXLEN FROM information_schema.CHARACTER_SETS WHERE MAXLEN > ? LIMIT 6")) {
                p.setInt(1, 0);
                readAll(p);
            }
            try (PreparedStatement p = c.prepareStatement("SELECT LENGTH(?), ?")) {
                p.setBinaryStream(1, new ByteArrayInputStream("long data sent in pieces".getBytes(StandardCharsets.UTF_8)));
                p.setDouble(2, 2.5);
                readAll(p);
            }
            c.setCatalog("information_schema");
            c.setAutoCommit(false);
            c.rollback();
            c.setAutoCommit(true);
            assertThat(c.isValid(30)).isTrue();
        }
    }

    private static void mariadbConnectorOverTls(int port) throws SQLException {
        String url = "jdbc:mariadb://127.0.0.1:" + port + "/?" + options("sslMode=trust");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            readAll(s, "SELECT 1");
        }
    }

    /** Commands no driver above sends: STATISTICS, FIELD_LIST, SET_OPTION, RESET_CONNECTION, INIT_DB. */
    private static void rawClient(int port) throws IOException {
        try (RawMysqlClient c = RawMysqlClient.login(port, USER, PASSWORD, null, TIMEOUT)) {
            c.sendCommand(0x02, "information_schema".getBytes(StandardCharsets.UTF_8)); // COM_INIT_DB
            expect(c.readPacket(), "INIT_DB");
            c.sendCommand(0x09, new byte[0]); // COM_STATISTICS: one text packet
            c.readPacket();
            c.sendCommand(0x04, "CHARACTER_SETS\0".getBytes(StandardCharsets.UTF_8)); // COM_FIELD_LIST
            RawPacket p;
            do {
                p = c.readPacket();
            } while (!p.isEof() && !p.isErr());
            c.sendCommand(0x1B, new byte[] {0, 0}); // COM_SET_OPTION: multi-statements on
            c.readPacket();
            c.query("SELECT 1");
            c.sendCommand(0x1F, new byte[0]); // COM_RESET_CONNECTION
            expect(c.readPacket(), "RESET_CONNECTION");
            c.sendCommand(0x0E, new byte[0]); // COM_PING
            expect(c.readPacket(), "PING");
        }
    }

    private static void mariadbCli(int port) throws Exception {
        Process p = new ProcessBuilder("mariadb", "--no-defaults", "--skip-ssl", "-h", "127.0.0.1", "-P",
                Integer.toString(port), "-u", USER, "-p" + PASSWORD, "--connect-timeout=30", "-e",
                "SELECT 1; SHOW DATABASES; USE information_schema; SELECT DATABASE(), USER(), VERSION()")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    private static void expect(RawPacket p, String what) throws IOException {
        if (!p.isOk()) {
            throw new IOException(what + " answered " + p);
        }
    }

    private static void readAll(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            drain(rs);
        }
    }

    private static void readAll(PreparedStatement p) throws SQLException {
        try (ResultSet rs = p.executeQuery()) {
            drain(rs);
        }
    }

    private static void drain(ResultSet rs) throws SQLException {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            for (int i = 1; i <= columns; i++) {
                rs.getString(i);
            }
        }
    }
}
