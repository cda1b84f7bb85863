package dev.sluice.it.security;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.GuardedSluice;
import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.response.ErrorCodes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Slowloris: clients that send their login a byte a second, or stop after an SSLRequest, are cut
 * at the handshake timeout — the clock runs from the connection, not from the last byte — and
 * nobody else waits for them.
 */
class HandshakeTimeoutTest {
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(3);
    /** A loaded machine may be late by this much; a byte-a-second client would take far longer. */
    private static final Duration SLACK = Duration.ofSeconds(7);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    private static final int SLOW_CLIENTS = 50;
    /** A login on an idle machine takes milliseconds; this leaves room for a loaded one. */
    private static final Duration PROMPT_LOGIN = Duration.ofSeconds(10);
    private static final long BYTE_INTERVAL_MS = 1000;

    @RegisterExtension
    static final GuardedSluice sluice = GuardedSluice.with("""
            limits: {handshake-timeout: %ds}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """.formatted(HANDSHAKE_TIMEOUT.toSeconds()));

    private static byte[] loginPacket(HandshakeV10 greeting) {
        long caps = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SECURE_CONNECTION
                | Capabilities.CLIENT_PLUGIN_AUTH | Capabilities.CLIENT_LONG_PASSWORD;
        HandshakeResponse41 r = new HandshakeResponse41(caps, 1 << 24, 45, SandboxCluster.APP_USER,
                NativePassword.scramble(SandboxCluster.APP_PASSWORD.getBytes(StandardCharsets.UTF_8),
                        Arrays.copyOf(greeting.scramble(), 20)), Optional.empty(),
                Optional.of(NativePassword.PLUGIN_NAME), Map.of());
        ByteBuf b = Unpooled.buffer();
        r.encode(b);
        byte[] packet = new byte[HEADER_SIZE + b.readableBytes()];
        packet[0] = (byte) b.readableBytes();
        packet[3] = 1;
        b.readBytes(packet, HEADER_SIZE, b.readableBytes());
        return packet;
    }

    /** A byte a second of a valid login; returns how long until Sluice answered, and what. */
    private static String slowLogin(List<Long> elapsedMillis) throws IOException {
        try (RawMysqlClient c = RawMysqlClient.open(sluice.port("rw"), READ_TIMEOUT)) {
            long start = System.nanoTime();
            byte[] packet = loginPacket(c.readGreeting());
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = c.socket().getOutputStream();
                    for (byte b : packet) {
                        out.write(b);
                        out.flush();
                        Thread.sleep(BYTE_INTERVAL_MS);
                    }
                } catch (IOException | InterruptedException e) {
                    // cut off, as expected
                }
            });
            writer.setDaemon(true);
            writer.start();
            RawPacket answer = c.readPacket();
            boolean closed = c.awaitClosed();
            elapsedMillis.add((System.nanoTime() - start) / 1_000_000);
            writer.interrupt();
            return answer.isErr() ? answer.err().errorCode() + " " + answer.err().message() + (closed ? ", closed" : "")
                    : "answered " + answer;
        }
    }

    @Test
    void aClientSendingAByteASecondIsCutAtTheHandshakeTimeout() throws Exception {
        List<Long> elapsed = new ArrayList<>();
        String outcome = slowLogin(elapsed);
        assertThat(outcome).isEqualTo("1043 Bad handshake: no login within " + HANDSHAKE_TIMEOUT.toMillis()
                + " ms, closed");
        assertThat(elapsed.get(0)).isBetween(HANDSHAKE_TIMEOUT.toMillis() - 100,
                HANDSHAKE_TIMEOUT.plus(SLACK).toMillis());
    }

    @Test
    void fiftySlowClientsAreAllCutAndALoginMeanwhileIsPrompt() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(SLOW_CLIENTS);
        try {
            List<Long> elapsed = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Future<String>> slow = new ArrayList<>();
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                slow.add(pool.submit(() -> slowLogin(elapsed)));
            }
            long start = System.nanoTime();
            try (Connection c = DriverManager.getConnection(sluice.sluice().mariadbUrl("rw", "connectTimeout=30000"))) {
                assertThat(c.isValid(30)).isTrue();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a login while 50 clients crawl")
                    .isLessThan(PROMPT_LOGIN);
            for (Future<String> f : slow) {
                assertThat(f.get()).startsWith("1043 Bad handshake: no login within");
            }
            assertThat(elapsed).allSatisfy(ms -> assertThat(ms).isLessThan(HANDSHAKE_TIMEOUT.plus(SLACK).toMillis()));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aClientThatStopsAfterItsSslRequestIsCutToo() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(sluice.port("rw"), READ_TIMEOUT)) {
            long start = System.nanoTime();
            c.readGreeting();
            byte[] sslRequest = new byte[32];
            sslRequest[1] = (byte) 0x0A; // CLIENT_SSL | CLIENT_PROTOCOL_41
            c.writePacket(1, sslRequest);
            assertThat(c.awaitClosed()).isTrue();
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).isBetween(HANDSHAKE_TIMEOUT.toMillis() - 100, HANDSHAKE_TIMEOUT.plus(SLACK).toMillis());
        }
    }

    @Test
    void aClientThatSaysNothingIsCut() throws Exception {
        try (RawMysqlClient c = RawMysqlClient.open(sluice.port("rw"), READ_TIMEOUT)) {
            long start = System.nanoTime();
            c.readGreeting();
            RawPacket answer = c.readPacket();
            assertThat(answer.isErr()).isTrue();
            assertThat(answer.err().errorCode()).isEqualTo(ErrorCodes.ER_HANDSHAKE_ERROR);
            assertThat(c.awaitClosed()).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(HANDSHAKE_TIMEOUT.plus(SLACK).toMillis());
        }
    }
}
