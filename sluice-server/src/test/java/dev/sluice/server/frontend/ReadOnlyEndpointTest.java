package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.RouteError;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.server.backend.FakeBackend;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read-only endpoint (BEHAVIOUR §1): its session is given one replica at login, everything it
 * sends runs there, the primary is never used, and writes get the endpoint's error.
 */
class ReadOnlyEndpointTest {
    private final SessionHarness h = SessionHarness.readOnly("balancer: weighted\nweights: {ro1: 100, ro2: 0}");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void everyReadRunsOnTheSessionsReplica() {
        FakeBackend ro1 = h.read("SELECT 1", "ro1");
        h.query("SELECT a FROM t");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT a FROM t");
        ro1.rows(List.of("a"), List.of(List.of("7")));
        assertThat(h.rows()).containsExactly(List.of("7"));
        assertThat(h.nodes.of("primary")).as("the primary is never used").isEmpty();
        assertThat(h.nodes.of("ro2")).isEmpty();
    }

    @Test
    void aWriteGetsTheEndpointsErrorAndReachesNoServer() {
        h.query("UPDATE t SET a = 1");
        assertThat(h.error()).isEqualTo("1290 endpoint 'rw' is read-only: writes are not accepted here");
        assertThat(h.nodes.all()).as("refused by Sluice").isEmpty();
        h.query("INSERT INTO t VALUES (1)");
        assertThat(h.error()).startsWith("1290 ");
        assertThat(h.clientOpen()).as("the session goes on").isTrue();
    }

    @Test
    void aSessionCommandRunsOnTheReplicaNotThePrimary() {
        h.read("SELECT 1", "ro1");
        h.query("SET sql_mode = 'ANSI'");
        FakeBackend ro1 = h.backend("ro1");
        assertThat(ro1.takeClientCommand()).isEqualTo("SET sql_mode = 'ANSI'");
        ro1.ok();
        h.ok();
        assertThat(h.nodes.of("primary")).isEmpty();
    }

    @Test
    void withNoUsableReplicaTheLoginIsRefused() {
        h.nodeState("ro1", s -> s.withReachable(false));
        h.nodeState("ro2", s -> s.withReachable(false));
        RoutingSession next = RoutingSession.open(h.endpoint.view(), ClientCharset.UTF8MB4);
        Optional<RouteError> refused = ReadOnlyEndpoint.assignReplica(next, h.endpoint.view(), h.endpoint.name());
        assertThat(refused).hasValueSatisfying(e -> assertThat(e.message()).contains("has no usable replica"));
        assertThat(next.connectionReplica()).isEmpty();
    }
}
