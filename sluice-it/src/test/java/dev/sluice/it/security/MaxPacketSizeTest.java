package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.protocol.response.ErrorCodes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code limits.max-packet-size}: a packet over it gets the server's own error for that,
 * ER_NET_PACKET_TOO_LARGE (1153, SQLSTATE 08S01, "Got a packet bigger than 'max_allowed_packet'
 * bytes"), and the connection is closed; one just under it goes through.
 */
class MaxPacketSizeTest {
    private static final int LIMIT = 1 << 20;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {max-packet-size: 1m}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """);

    private static RawMysqlClient login() throws Exception {
        return RawMysqlClient.login(sluice.port("rw"), SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD, "test",
                READ_TIMEOUT);
    }

    private static byte[] query(int payloadSize) {
        byte[] prefix = "\u0003SELECT LENGTH('".getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "')".getBytes(StandardCharsets.US_ASCII);
        byte[] q = new byte[payloadSize];
        Arrays.fill(q, (byte) 'x');
        System.arraycopy(prefix, 0, q, 0, prefix.length);
        System.arraycopy(suffix, 0, q, q.length - suffix.length, suffix.length);
        return q;
    }

    @Test
    void aPacketOverTheLimitGetsError1153AndTheConnectionCloses() throws Exception {
        try (RawMysqlClient c = login()) {
            // The header and the first bytes only: the answer comes while the client is still
            // sending, and the rest must still be taken (dropped), not refused with a reset.
            byte[] payload = query(LIMIT + 1);
            int sentFirst = 1 << 16;
            byte[] header = {(byte) payload.length, (byte) (payload.length >>> 8), (byte) (payload.length >>> 16), 0};
            c.writeRaw(header);
            c.writeRaw(Arrays.copyOfRange(payload, 0, sentFirst));
            RawPacket answer = c.readPacket();
            assertThat(answer.isErr()).as("answer " + answer).isTrue();
            assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_NET_PACKET_TOO_LARGE);
            assertThat(answer.err().sqlState()).isEqualTo("08S01");
            assertThat(answer.err().message()).startsWith("Got a packet bigger than 'max_allowed_packet' bytes");
            assertThat(answer.sequenceId()).isEqualTo(1);
            c.writeRaw(Arrays.copyOfRange(payload, sentFirst, payload.length));
            assertThat(c.closedCleanly()).as("the connection ends with the end of the stream, not a reset").isTrue();
        }
    }

    @Test
    void aPacketAtTheLimitGoesThrough() throws Exception {
        try (RawMysqlClient c = login()) {
            c.writePacket(0, query(LIMIT));
            List<List<String>> rows = c.readResult();
            int expected = LIMIT - "\u0003SELECT LENGTH('".length() - "')".length();
            assertThat(rows).containsExactly(List.of(Integer.toString(expected)));
        }
    }
}
