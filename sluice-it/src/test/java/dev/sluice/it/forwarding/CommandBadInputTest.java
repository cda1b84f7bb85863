package dev.sluice.it.forwarding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.protocol.Command;
import dev.sluice.protocol.response.ErrorCodes;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input after the login: an unknown command byte, a packet over {@code limits.max-packet-size},
 * a command packet that is cut off by the client closing. Each gets an ERR packet (and the
 * session goes on, or is closed, as the server would do), the backend connection behind a closed
 * session goes away, and a well-behaved session running alongside never notices.
 */
class CommandBadInputTest {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
    private static final int TWO_MB = 2 * 1024 * 1024;

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("limits: {handshake-timeout: 1s, max-packet-size: 1m}\n"
            + ForwardingEndpoint.SECTION);

    private static RawMysqlClient login() throws Exception {
        return RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                READ_TIMEOUT);
    }

    @Test
    void anUnknownCommandGetsErr1047AndTheSessionGoesOn() throws Exception {
        try (RawMysqlClient c = login()) {
            c.sendCommand(0x55, new byte[] {1, 2, 3});
            RawPacket answer = c.readPacket();
            assertThat(answer.isErr()).as("answer %s", answer).isTrue();
            assertThat(answer.sequenceId()).isEqualTo(1);
            assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_UNKNOWN_COM_ERROR);
            assertThat(answer.err().sqlState()).isEqualTo("08S01");
            assertThat(c.query("SELECT 'usable'")).containsExactly(List.of("usable"));
            c.sendCommand(0xEE, new byte[0]);
            assertThat(c.readPacket().err().errorCode()).isEqualTo(ErrorCodes.ER_UNKNOWN_COM_ERROR);
            assertThat(c.query("SELECT 'still usable'")).containsExactly(List.of("still usable"));
        }
    }

    /**
     * Binary-protocol commands shorter than their fixed part (reading them as if complete would run
     * past their end and leave the session waiting): ERR 1835 as the server answers, or
     * nothing for the commands that have no response, and the session goes on.
     */
    @Test
    void commandsShorterThanTheirFixedPartGetErr1835AndTheSessionGoesOn() throws Exception {
        try (RawMysqlClient c = login()) {
            for (byte[] command : List.of(new byte[] {0x17, 1, 0}, new byte[] {0x1A, 1}, new byte[] {0x1C, 1, 0, 0, 0},
                    new byte[] {0x0C, 1}, new byte[] {0x1B, 1}, new byte[] {(byte) 0xFA, 1, 0})) {
                c.writePacket(0, command);
                RawPacket answer = c.readPacket();
                assertThat(answer.isErr()).as("answer to %s: %s", RawMysqlClient.hex(command), answer).isTrue();
                assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_MALFORMED_PACKET);
                assertThat(answer.err().message()).isEqualTo("Malformed communication packet");
            }
            // STMT_CLOSE and STMT_SEND_LONG_DATA have no response: dropped, the next command is answered.
            c.writePacket(0, new byte[] {0x19, 1});
            c.writePacket(0, new byte[] {0x18, 1, 0});
            assertThat(c.query("SELECT 'usable'")).containsExactly(List.of("usable"));
        }
    }

    /** An EXECUTE announcing parameter types it does not carry: the server's error, and the session goes on. */
    @Test
    void anExecuteWithoutItsAnnouncedParameterTypesGetsTheServersError() throws Exception {
        try (RawMysqlClient c = login()) {
            c.writePacket(0, ("\u0016SELECT ? + ?").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            RawPacket ok = c.readPacket();
            assertThat(ok.isOk()).as("PREPARE_OK %s", ok).isTrue();
            byte[] head = ok.payload();
            int id = (head[1] & 0xFF) | (head[2] & 0xFF) << 8;
            int columns = (head[5] & 0xFF) | (head[6] & 0xFF) << 8;
            int params = (head[7] & 0xFF) | (head[8] & 0xFF) << 8;
            assertThat(params).isEqualTo(2);
            // Parameter definitions then EOF, column definitions then EOF (the classic protocol).
            for (int i = 0; i < params + 1 + (columns > 0 ? columns + 1 : 0); i++) {
                c.readPacket();
            }
            // id, flags 0, iteration count 1, null bitmap (1 byte), new-params-bound 1 — and no types.
            c.writePacket(0, new byte[] {0x17, (byte) id, (byte) (id >> 8), 0, 0, 0, 1, 0, 0, 0, 0, 1});
            RawPacket answer = c.readPacket();
            assertThat(answer.isErr()).as("answer %s", answer).isTrue();
            assertThat(c.query("SELECT 'still usable'")).containsExactly(List.of("still usable"));
        }
    }

    @Test
    void aPacketOverTheLimitGetsErr1153WithSequenceOneThenClose() throws Exception {
        try (RawMysqlClient c = login()) {
            long backend = backendId(c);
            // backendId ran one command; a fresh session shows the first-command case below.
            assertOversizedRefused(c, "after one command");
            PrimaryProcesslist.awaitGone(backend);
        }
        try (RawMysqlClient c = login()) {
            assertOversizedRefused(c, "as the first command");
        }
    }

    private static void assertOversizedRefused(RawMysqlClient c, String when) throws Exception {
        byte[] sql = new byte[TWO_MB];
        Arrays.fill(sql, (byte) '1');
        System.arraycopy("SELECT ".getBytes(), 0, sql, 0, 7);
        try {
            c.sendCommand(Command.COM_QUERY, sql);
        } catch (java.io.IOException e) {
            // Sluice may close while we are still writing; the ERR must have been sent before.
        }
        RawPacket answer = c.readPacketOrClose().orElse(null);
        assertThat(answer).as("%s: an ERR packet before the close", when).isNotNull();
        assertThat(answer.isErr()).as("%s: answer %s", when, answer).isTrue();
        assertThat(answer.err().errorCode()).as(when).isEqualTo(ErrorCodes.ER_NET_PACKET_TOO_LARGE);
        assertThat(answer.err().sqlState()).as(when).isEqualTo("08S01");
        assertThat(c.awaitClosed()).as("%s: closed after the ERR", when).isTrue();
        assertThat(answer.sequenceId()).as("%s: sequence id of the ERR (the server sends 1: it answers the command's "
                + "packet 0)", when).isEqualTo(1);
    }

    @Test
    void aCommandCutShortByTheClientClosingReleasesTheBackend() throws Exception {
        long backend;
        try (RawMysqlClient c = login()) {
            backend = backendId(c);
            // Announces a 100-byte COM_QUERY, sends 11 bytes of it, and goes away.
            c.writeRaw(new byte[] {100, 0, 0, 0, 3, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', '2', '3'});
        }
        PrimaryProcesslist.awaitGone(backend);
    }

    @Test
    void aCommandCutShortWhileTheClientStaysConnectedDoesNotBlockOthers() throws Exception {
        try (RawMysqlClient c = login()) {
            long backend = backendId(c);
            c.writeRaw(new byte[] {100, 0, 0, 0, 3, 'S', 'E', 'L'});
            sluice.assertBystanderUnaffected();
            // The rest arrives late: the command runs as sent.
            byte[] rest = new byte[96];
            Arrays.fill(rest, (byte) ' ');
            rest[0] = 'E';
            rest[1] = 'C';
            rest[2] = 'T';
            rest[4] = '4';
            rest[5] = '2';
            c.writeRaw(rest);
            assertThat(c.readResult()).containsExactly(List.of("42"));
            assertThat(backendId(c)).isEqualTo(backend);
        }
    }

    static long backendId(RawMysqlClient c) throws Exception {
        return c.connectionId();
    }
}
