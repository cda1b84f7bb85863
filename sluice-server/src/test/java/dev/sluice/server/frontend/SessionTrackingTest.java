package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.server.backend.FakeBackend;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Backends always track the session's GTIDs, whatever the client negotiated; a client that did not
 * ask for session tracking gets OK packets without the state block, as the server would have sent
 * them to it (docs/ARCHITECTURE.md, "Sessions and backends").
 */
class SessionTrackingTest {
    private static final long WITHOUT_TRACKING = SessionHarness.CLIENT_CAPABILITIES & ~Capabilities.CLIENT_SESSION_TRACK;

    private SessionHarness h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
            WITHOUT_TRACKING);

    @AfterEach
    void close() {
        h.close();
    }

    private long clientCapabilities = WITHOUT_TRACKING;

    /** The client commits; returns the OK it got, as it reads it with its capabilities. */
    private OkPacket committed() {
        h.query("INSERT INTO t VALUES (1)");
        FakeBackend primary = h.backend("primary");
        primary.takeClientCommand();
        primary.okCommitted("0-1-101");
        return OkPacket.decode(Unpooled.wrappedBuffer(h.ok()), clientCapabilities);
    }

    @Test
    void backendsAreOpenedWithSessionTrackingEvenForAClientWithoutIt() {
        h.query("SELECT 1");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.negotiated(Capabilities.CLIENT_SESSION_TRACK)).isTrue();
        assertThat(ro1.take()).as("asked to track last_gtid before anything else").contains("last_gtid");
    }

    @Test
    void aCommitsOkReachesAClientWithoutTrackingWithoutItsSessionState() {
        OkPacket ok = committed();
        assertThat(ok.affectedRows()).isEqualTo(1);
        assertThat(ServerStatus.has(ok.statusFlags(), ServerStatus.SESSION_STATE_CHANGED)).isFalse();
        assertThat(ok.sessionStateChanges()).isEmpty();
        assertThat(ok.info()).as("nothing left over from the state block").isEmpty();
    }

    @Test
    void aCommitsOkReachesATrackingClientWithItsSessionState() {
        h.close();
        clientCapabilities = SessionHarness.CLIENT_CAPABILITIES;
        h = SessionHarness.readWrite(SessionHarness.READS_ON_REPLICAS,
                clientCapabilities);
        OkPacket ok = committed();
        assertThat(ServerStatus.has(ok.statusFlags(), ServerStatus.SESSION_STATE_CHANGED)).isTrue();
        assertThat(ok.sessionStateChanges()).isNotEmpty();
    }

    @Test
    void aClientWithoutTrackingStillGetsItsLastGtidFromSluice() {
        committed();
        h.query("SELECT sluice_last_gtid()");
        assertThat(h.rows()).containsExactly(List.of("0-1-101"));
    }

    @Test
    void theClientsOwnSetOfTrackedVariablesIsFollowedBySluicesAskToTrackGtidsAgain() {
        h.query("SET session_track_system_variables = 'autocommit'");
        FakeBackend primary = h.backend("primary");
        assertThat(primary.takeClientCommand()).isEqualTo("SET session_track_system_variables = 'autocommit'");
        primary.ok();
        h.ok();
        assertThat(primary.take()).as("else commits would no longer report their GTID")
                .startsWith("SET SESSION session_track_system_variables").contains("last_gtid");
    }
}
