package dev.sluice.protocol.golden;

import static dev.sluice.protocol.Capabilities.*;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.response.ColumnCount;
import dev.sluice.protocol.response.EofPacket;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.response.PrepareOk;
import dev.sluice.protocol.ServerStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Captures the golden packets under {@code src/test/resources/golden/} from a throw-away
 * MariaDB server. Not a test: run it by hand against a server you started yourself.
 *
 * <pre>
 * java -cp … dev.sluice.protocol.golden.GoldenCapture 127.0.0.1 3399 sluice s3cret-pw OUTDIR
 * </pre>
 *
 * The account must use mysql_native_password and own databases {@code captest} and {@code captest2}; captest has table
 * {@code t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))}. Logging in at all proves
 * that {@link NativePassword} computes what the server expects.
 */
public final class GoldenCapture {
    static final long BASE_CAPS = CLIENT_LONG_FLAG | CLIENT_CONNECT_WITH_DB | CLIENT_LOCAL_FILES
            | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_MULTI_STATEMENTS
            | CLIENT_MULTI_RESULTS | CLIENT_PS_MULTI_RESULTS | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    static final long MODERN_CAPS = BASE_CAPS | CLIENT_SESSION_TRACK | CLIENT_DEPRECATE_EOF;

    private final String host;
    private final int port;
    private final String user;
    private final byte[] password;
    private final Path dir;

    private GoldenCapture(String[] args) {
        host = args[0];
        port = Integer.parseInt(args[1]);
        user = args[2];
        password = args[3].getBytes(StandardCharsets.UTF_8);
        dir = Path.of(args[4]);
    }

    public static void main(String[] args) throws Exception {
        new GoldenCapture(args).run();
    }

    private void run() throws Exception {
        try (Wire w = new Wire(host, port)) {
            w.comment("server greeting, then a login computed by NativePassword, with SESSION_TRACK + DEPRECATE_EOF");
            long caps = login(w, MODERN_CAPS, NativePassword.PLUGIN_NAME, password);
            save("login-native.hex", w);
            w.comment("SET session_track_system_variables='last_gtid' (caps " + Capabilities.describe(caps) + ")");
            query(w, caps, "SET session_track_system_variables='last_gtid'");
            w.comment("INSERT into a table with a primary key: the OK carries last_gtid");
            query(w, caps, "INSERT INTO t(v) VALUES ('golden')");
            save("ok-last-gtid.hex", w);
            w.comment("session_track_state_change / transaction_info=CHARACTERISTICS / system_variables, then USE, START TRANSACTION READ ONLY, COMMIT, SET autocommit=0");
            query(w, caps, "SET session_track_state_change=ON, session_track_transaction_info='CHARACTERISTICS',"
                    + " session_track_system_variables='autocommit,last_gtid'");
            query(w, caps, "USE captest2");
            query(w, caps, "START TRANSACTION READ ONLY");
            query(w, caps, "COMMIT");
            query(w, caps, "SET autocommit=0");
            save("ok-session-state.hex", w);
            w.comment("UPDATE with SESSION_TRACK: the OK has an info message");
            query(w, caps, "UPDATE captest.t SET v = v WHERE id <= 2");
            save("ok-info-session-track.hex", w);
            w.comment("ERR: a table that does not exist");
            query(w, caps, "SELECT * FROM captest.nope");
            save("err-no-such-table.hex", w);
            w.comment("result set with CLIENT_DEPRECATE_EOF (ends with an OK with 0xFE header), a NULL value");
            query(w, caps, "SELECT id, v FROM captest.t ORDER BY id LIMIT 3");
            save("resultset-deprecate-eof.hex", w);
            w.comment("COM_STMT_PREPARE response with CLIENT_DEPRECATE_EOF");
            prepare(w, caps, "SELECT id, v FROM captest.t WHERE id = ? OR v = ?");
            save("prepare-deprecate-eof.hex", w);
            w.comment("multi-statement: two results, MORE_RESULTS_EXISTS in the first terminator");
            query(w, caps, "SELECT 1 AS a; SELECT 'two' AS b");
            save("multi-result-deprecate-eof.hex", w);
        }
        try (Wire w = new Wire(host, port)) {
            w.comment("login without SESSION_TRACK / DEPRECATE_EOF");
            long caps = login(w, BASE_CAPS, NativePassword.PLUGIN_NAME, password);
            w.comment("result set with EOF packets");
            query(w, caps, "SELECT id, v FROM captest.t ORDER BY id LIMIT 3");
            save("resultset-eof.hex", w);
            w.comment("COM_STMT_PREPARE response with EOF packets");
            prepare(w, caps, "SELECT id, v FROM captest.t WHERE id = ? OR v = ?");
            save("prepare-eof.hex", w);
            w.comment("UPDATE without SESSION_TRACK: how the info message is laid out");
            query(w, caps, "UPDATE captest.t SET v = v WHERE id <= 2");
            save("ok-info-no-session-track.hex", w);
        }
        try (Wire w = new Wire(host, port)) {
            w.comment("login announcing caching_sha2_password: the server switches to mysql_native_password");
            login(w, MODERN_CAPS, "caching_sha2_password", password);
            save("auth-switch.hex", w);
        }
        try (Wire w = new Wire(host, port)) {
            w.comment("login with a wrong password: ERR 1045");
            login(w, MODERN_CAPS, NativePassword.PLUGIN_NAME, "wrong".getBytes(StandardCharsets.UTF_8));
            save("err-access-denied.hex", w);
        }
        try (Wire w = new Wire(host, port)) {
            w.comment("MariaDB extended capabilities EXTENDED_TYPE_INFO + CACHE_METADATA, JSON column");
            long caps = login(w, MODERN_CAPS | MARIADB_CLIENT_EXTENDED_TYPE_INFO | MARIADB_CLIENT_CACHE_METADATA
                    | MARIADB_CLIENT_STMT_BULK_OPERATIONS, NativePassword.PLUGIN_NAME, password);
            query(w, caps, "SELECT JSON_OBJECT('k', 1) AS j, CAST(1 AS UNSIGNED) AS n");
            save("resultset-mariadb-extended.hex", w);
        }
    }

    /** Logs in; returns the negotiated capabilities (0 when the server said no). */
    private long login(Wire w, long wanted, String plugin, byte[] pw) throws IOException {
        HandshakeV10 greeting = HandshakeV10.decode(w.readBuf());
        long caps = wanted & greeting.capabilities();
        if (!Capabilities.isMariaDb(greeting.capabilities())) {
            caps &= LOWER_32_MASK;
        }
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("_client_name", "sluice-golden-capture");
        attrs.put("_client_version", "0.1");
        byte[] auth = NativePassword.PLUGIN_NAME.equals(plugin)
                ? NativePassword.scramble(pw, greeting.scramble())
                : new byte[32];
        HandshakeResponse41 response = new HandshakeResponse41(caps, 1 << 24, 45, user, auth,
                Optional.of("captest"), Optional.of(plugin), attrs);
        ByteBuf payload = Unpooled.buffer();
        response.encode(payload);
        w.write(1, payload);
        ByteBuf reply = w.readBuf();
        if (reply.getUnsignedByte(0) == AuthSwitchRequest.HEADER) {
            AuthSwitchRequest sw = AuthSwitchRequest.decode(reply);
            w.write(w.lastSeq + 1, Unpooled.wrappedBuffer(NativePassword.scramble(pw, sw.seed())));
            reply = w.readBuf();
        }
        if (ErrPacket.isErr(reply)) {
            System.out.println("login refused: " + ErrPacket.decode(reply));
            return 0;
        }
        OkPacket.decode(reply, caps);
        System.out.println("logged in: " + Capabilities.describe(caps));
        return caps;
    }

    private void query(Wire w, long caps, String sql) throws IOException {
        ByteBuf payload = Unpooled.buffer();
        payload.writeByte(Command.COM_QUERY).writeCharSequence(sql, StandardCharsets.UTF_8);
        w.write(0, payload);
        readResponse(w, caps);
    }

    private void readResponse(Wire w, long caps) throws IOException {
        while (true) {
            ByteBuf first = w.readBuf();
            int status;
            if (ErrPacket.isErr(first)) {
                return;
            } else if (OkPacket.isOk(first)) {
                status = OkPacket.statusFlagsOf(first, caps);
            } else {
                ColumnCount count = ColumnCount.decode(first, caps);
                for (long i = 0; count.metadataFollows() && i < count.count(); i++) {
                    w.read();
                }
                if (!has(caps, CLIENT_DEPRECATE_EOF)) {
                    w.read();
                }
                ByteBuf row;
                do {
                    row = w.readBuf();
                } while (!EofPacket.isResultSetEnd(row, caps) && !ErrPacket.isErr(row));
                status = has(caps, CLIENT_DEPRECATE_EOF) ? OkPacket.statusFlagsOf(row, caps)
                        : EofPacket.statusFlagsOf(row);
            }
            if (!ServerStatus.has(status, ServerStatus.MORE_RESULTS_EXISTS)) {
                return;
            }
        }
    }

    private void prepare(Wire w, long caps, String sql) throws IOException {
        ByteBuf payload = Unpooled.buffer();
        payload.writeByte(Command.COM_STMT_PREPARE).writeCharSequence(sql, StandardCharsets.UTF_8);
        w.write(0, payload);
        PrepareOk ok = PrepareOk.decode(w.readBuf());
        for (int i = 0; i < ok.followingPackets(caps); i++) {
            w.read();
        }
    }

    private void save(String name, Wire w) throws IOException {
        Files.write(dir.resolve(name), w.log);
        w.log.clear();
    }
}
