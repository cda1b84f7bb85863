package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every answer the client reads numbers its packets on from the command's sequence id, whether a
 * server wrote it or Sluice did: drivers check the numbers and drop a connection that skips one.
 */
class SequenceIdTest {
    private SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    private static List<Integer> numbered(int count) {
        return IntStream.rangeClosed(1, count).boxed().toList();
    }

    private List<Integer> sequenceIds() {
        return h.c.packets().stream().map(ClientEnd.Packet::sequenceId).toList();
    }

    @Test
    void aForwardedResultSetKeepsTheServersNumbering() {
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        ro1.takeClientCommand();
        ro1.rows(List.of("a"), List.of(List.of("1"), List.of("2")));
        assertThat(sequenceIds()).containsExactlyElementsOf(numbered(5));
    }

    @Test
    void sluicesOwnResultSetIsNumberedFromOne() {
        h.query("SELECT sluice_last_gtid()");
        assertThat(sequenceIds()).containsExactlyElementsOf(numbered(4));
    }

    @Test
    void sluicesOwnOkToAPingIsNumberedOne() {
        h.c.ping();
        assertThat(sequenceIds()).containsExactly(1);
    }

    @Test
    void aPrepareOkWithItsDefinitionsIsNumberedFromOne() {
        h.c.prepare("SELECT a, b FROM t WHERE c = ?");
        FakeBackend ro = h.nodes.all().get(0);
        ro.takeClientCommand();
        ro.prepareOk(12, 1, 2);
        assertThat(sequenceIds()).containsExactlyElementsOf(numbered(4));
    }

    @Test
    void aClientWithoutDeprecateEofGetsSluicesOwnResultSetWithItsEofPackets() {
        h.close();
        h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
                SessionHarness.CLIENT_CAPABILITIES & ~Capabilities.CLIENT_DEPRECATE_EOF);
        h.query("SELECT sluice_last_gtid()");
        List<ClientEnd.Packet> packets = h.c.packets();
        assertThat(packets).extracting(ClientEnd.Packet::sequenceId).containsExactlyElementsOf(numbered(5));
        assertThat(packets.get(2).first()).as("EOF after the column definitions").isEqualTo(0xFE);
        assertThat(packets.get(2).payload()).hasSize(5);
        assertThat(packets.get(4).first()).isEqualTo(0xFE);
        assertThat(packets.get(4).payload()).as("an EOF, not an OK with the EOF header").hasSize(5);
    }

    @Test
    void aClientWithoutDeprecateEofGetsAForwardedResultSetWithItsEofPackets() {
        h.close();
        h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
                SessionHarness.CLIENT_CAPABILITIES & ~Capabilities.CLIENT_DEPRECATE_EOF);
        h.query("SELECT a FROM t");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.negotiated(Capabilities.CLIENT_DEPRECATE_EOF)).as("the backend speaks as the client does")
                .isFalse();
        ro1.takeClientCommand();
        ro1.rows(List.of("a"), List.of(List.of("1")));
        List<ClientEnd.Packet> packets = h.c.packets();
        assertThat(packets).extracting(ClientEnd.Packet::sequenceId).containsExactlyElementsOf(numbered(5));
        assertThat(packets.get(2).first()).isEqualTo(0xFE);
        assertThat(packets.get(4).first()).isEqualTo(0xFE);
    }
}
