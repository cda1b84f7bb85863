package dev.sluice.it.forwarding;

import static dev.sluice.protocol.packet.Packets.HEADER_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.RawMysqlClient;
import dev.sluice.it.support.RawMysqlClient.RawPacket;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * More than 1 GB of result streams through a Sluice started as its own process with a 256 MB heap
 * and 256 MB of direct memory, to a client that reads slowly: every row arrives, Sluice does not
 * run out of memory (it must stop reading the backend while the client lags), and it keeps
 * answering other clients during and after the stream.
 */
class GigabyteStreamTest {
    private static final int ROWS = 1100;
    private static final int ROW_VALUE = 1_048_576;
    /** lenenc prefix 0xFD + 3 bytes, then the value. */
    private static final int ROW_PAYLOAD = 4 + ROW_VALUE;
    private static final int CHUNK = 256 * 1024;
    private static final long PAUSE_MS = 2;

    @TempDir
    static Path dir;
    private static SluiceProcess sluice;
    private static int port;

    @BeforeAll
    static void startSluiceProcess() throws Exception {
        sluice = SluiceProcess.start(SandboxCluster.get(), dir, "big", "", List.of("-Xmx256m",
                "-XX:MaxDirectMemorySize=256m", "-Dio.netty.leakDetection.level=paranoid"));
        port = sluice.port();
    }

    @AfterAll
    static void stopSluiceProcess() throws Exception {
        if (sluice == null) {
            return;
        }
        sluice.close();
        assertThat(sluice.output()).as("Sluice process output").doesNotContain("OutOfMemoryError", "LEAK:");
    }

    private static String output() {
        return sluice.output();
    }

    private static String url() {
        return sluice.mariadbUrl("connectTimeout=5000&socketTimeout=20000");
    }

    @Test
    void aGigabyteResultReachesASlowClientWhileSluiceKeepsServingOthers() throws Exception {
        List<String> problems = new CopyOnWriteArrayList<>();
        AtomicInteger othersServed = new AtomicInteger();
        Thread other = new Thread(() -> {
            try (Connection steady = DriverManager.getConnection(url()); Statement s = steady.createStatement()) {
                while (!Thread.currentThread().isInterrupted()) {
                    try (ResultSet rs = s.executeQuery("SELECT 7 * 6")) {
                        rs.next();
                        if (rs.getInt(1) != 42) {
                            problems.add("wrong answer");
                        }
                    }
                    try (Connection fresh = DriverManager.getConnection(url()); Statement f = fresh.createStatement();
                            ResultSet rs = f.executeQuery("SELECT @@server_id")) {
                        rs.next();
                    }
                    othersServed.incrementAndGet();
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                problems.add(e.toString());
            }
        }, "second-client");

        long rows = 0;
        long bytes = 0;
        int servedBefore;
        try (RawMysqlClient slow = RawMysqlClient.login(port, SandboxCluster.APP_USER, SandboxCluster.APP_PASSWORD,
                "test", Duration.ofSeconds(30))) {
            slow.sendQuery("SELECT REPEAT('x', " + ROW_VALUE + ") FROM seq_1_to_" + ROWS);
            RawPacket columns = slow.readPacket();
            assertThat(columns.payload()).as("column count packet").containsExactly(1);
            slow.readPacket();
            assertThat(slow.readPacket().isEof()).as("EOF after the column definition").isTrue();
            other.start();
            while (true) {
                int[] header = slow.readHeader();
                assertThat(header[0]).as("connection still open after %d rows", rows).isNotNegative();
                byte[] payload = new byte[header[0]];
                slow.readFullySlowly(payload, CHUNK, PAUSE_MS);
                if ((payload[0] & 0xFF) == 0xFE && payload.length < 9) {
                    break;
                }
                assertThat(payload[0] & 0xFF).as("row %d is not an ERR packet", rows).isNotEqualTo(0xFF);
                assertThat(payload.length).as("row %d length", rows).isEqualTo(ROW_PAYLOAD);
                assertThat((char) payload[ROW_PAYLOAD - 1]).isEqualTo('x');
                rows++;
                bytes += HEADER_SIZE + payload.length;
            }
            servedBefore = othersServed.get();
            assertThat(slow.query("SELECT 'after'")).containsExactly(List.of("after"));
        } finally {
            other.interrupt();
            other.join(30_000);
        }

        assertThat(rows).as("rows received").isEqualTo(ROWS);
        assertThat(bytes).as("bytes received").isGreaterThan(1L << 30);
        assertThat(problems).as("errors seen by another client during the stream").isEmpty();
        assertThat(servedBefore).as("queries answered for another client during the stream").isGreaterThan(3);
        assertThat(sluice.isAlive()).as("Sluice process still alive; output:\n" + output()).isTrue();
        try (Connection after = DriverManager.getConnection(url()); Statement s = after.createStatement();
                ResultSet rs = s.executeQuery("SELECT 'still serving'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("still serving");
        }
        assertThat(output()).doesNotContain("OutOfMemoryError", "LEAK:");
    }
}
