package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.server.backend.FakeBackend;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LOAD DATA LOCAL INFILE: the server asks the client for its file through Sluice, and the
 * client's data streams to that very connection, with backpressure toward the client
 * (docs/ARCHITECTURE.md, "Runtime shape").
 */
class LocalInfileTest {
    private static final String LOAD = "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE t";

    private SessionHarness h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
            SessionHarness.CLIENT_CAPABILITIES | Capabilities.CLIENT_LOCAL_FILES);

    @AfterEach
    void close() {
        h.close();
    }

    private FakeBackend fileRequested() {
        h.query(LOAD);
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo(LOAD);
        primary.localInfileRequest("rows.csv");
        byte[] request = h.packet();
        assertThat(request[0] & 0xFF).isEqualTo(0xFB);
        assertThat(new String(request, 1, request.length - 1, StandardCharsets.UTF_8)).isEqualTo("rows.csv");
        return primary;
    }

    @Test
    void theClientsFileStreamsToThePrimaryAndTheServersOkEndsTheCommand() {
        FakeBackend primary = fileRequested();
        h.c.sendContinuation(2, "1,a\n".getBytes(StandardCharsets.UTF_8));
        h.c.sendContinuation(3, "2,b\n".getBytes(StandardCharsets.UTF_8));
        h.c.sendContinuation(4, new byte[0]);
        assertThat(HexFormat.of().formatHex(primary.takePayload())).isEqualTo("312c610a");
        assertThat(HexFormat.of().formatHex(primary.takePayload())).isEqualTo("322c620a");
        assertThat(primary.takePayload()).as("the empty packet ends the file").isEmpty();
        assertThat(h.hasAnswer()).isFalse();
        primary.ok();
        h.ok();
        h.query("SELECT 1");
        assertThat(h.backend("ro1").takeClientCommand()).as("the session goes on").isEqualTo("SELECT 1");
    }

    @Test
    void aServerThatCannotTakeMoreOfTheFileStopsReadsFromTheClient() {
        FakeBackend primary = fileRequested();
        primary.stall(1024);
        h.c.sendContinuation(2, new byte[4096]);
        assertThat(h.client.config().isAutoRead()).as("nothing piles up in Sluice").isFalse();
        primary.resume();
        assertThat(h.client.config().isAutoRead()).isTrue();
        h.c.sendContinuation(3, new byte[0]);
        assertThat(primary.takePayload()).hasSize(4096);
        assertThat(primary.takePayload()).isEmpty();
        primary.ok();
        h.ok();
    }

    @Test
    void underTheTransactionPoolAnUploadTiesTheSessionToItsConnection() {
        h.close();
        h = SessionHarness.readWrite("connection-pool: transaction\n" + SessionHarness.READS_ON_REPLICAS,
                SessionHarness.CLIENT_CAPABILITIES | Capabilities.CLIENT_LOCAL_FILES);
        ClientEnd other = h.anotherClient();
        FakeBackend primary = fileRequested();
        h.c.sendContinuation(2, new byte[0]);
        primary.takePayload();
        primary.ok();
        h.ok();
        other.query("UPDATE t SET a = 2");
        assertThat(primary.hasCommand()).isFalse();
        assertThat(h.nodes.of("primary")).hasSize(2);
    }
}
