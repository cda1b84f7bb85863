package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.auth.Credential;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.TcpBackendConnector;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.SluiceConfig;
import dev.sluice.server.metrics.SluiceMetrics;
import dev.sluice.server.net.Transport;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.GlobalsGeneration;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A session's connection can die in ways the session hears of (a close event, a failed command)
 * and in one it does not yet: the channel is already inactive when the next command looks for a
 * connection, and its close event runs later. Found so, it must be lost exactly as if the close
 * event had come first — the session hears of it (its prepared statements, an open transaction
 * on the primary), rather than the connection vanishing from the session without a word.
 */
class SessionBackendsTest {
    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            monitor: {user: monitor, password: monitor, interval: 1s}
            nodes:
              - {name: primary, address: 127.0.0.1:3311, role: primary}
              - {name: ro1, address: 127.0.0.1:3312, role: replica}
            endpoints:
              - {name: rw, listen: 127.0.0.1:0, mode: read-write}
            """);
    private static final int RO1 = 1;

    private final List<BackendConnection> lost = new ArrayList<>();
    private final EmbeddedChannel loop = new EmbeddedChannel();
    private final SessionBackends backends = new SessionBackends(loop.eventLoop(),
            new TcpBackendConnector(Transport.best(), Duration.ofSeconds(1), Duration.ofSeconds(1)),
            new EndpointRuntime(CONFIG.endpoints().get(0), ConfigLoader.topologyOf(CONFIG.nodes())),
            new SluiceMetrics(), lost::add, new FixedState(), new GlobalsGeneration());

    @Test
    void aConnectionFoundDeadBeforeItsCloseEventIsLostAndTheSessionHearsOfIt() {
        BackendConnection ro1 = FakeBackends.connection("ro1", RO1);
        backends.adopt(ro1);
        assertThat(backends.ready(RO1)).isSameAs(ro1);

        ro1.channel().close();

        assertThat(backends.ready(RO1)).as("a dead connection is not handed out").isNull();
        assertThat(lost).as("the session heard of the loss").containsExactly(ro1);
        assertThat(backends.ready(RO1)).isNull();
        backends.lost(ro1);
        assertThat(lost).as("and heard of it once").containsExactly(ro1);
        ((EmbeddedChannel) ro1.channel()).releaseOutbound(); // the GTID tracking request adopt() sent
    }

    @Test
    void anEndedSessionOpensNoMoreConnections() {
        backends.end(false);
        var opened = backends.open(new dev.sluice.server.runtime.NodeRef(RO1, "ro1",
                CONFIG.nodes().get(RO1).address()));
        assertThat(opened.isDone()).isTrue();
        assertThat(opened.isSuccess()).isFalse();
    }

    /** A session with no state beyond its login. */
    private static final class FixedState implements BackendState {
        @Override
        public LoginRequest login() {
            return new LoginRequest("app", new Credential.PlainPassword("app".getBytes(StandardCharsets.UTF_8)),
                    Optional.empty(), FakeBackends.CAPABILITIES, 45, 1 << 24, Map.of());
        }

        @Override
        public String stateTag() {
            return "db=";
        }

        @Override
        public String freshTag(Optional<String> schema) {
            return "db=" + schema.orElse("");
        }

        @Override
        public dev.sluice.routing.sql.ClientCharset loginCharset() {
            return dev.sluice.routing.sql.ClientCharset.UTF8MB4;
        }

        @Override
        public Optional<String> schema() {
            return Optional.empty();
        }

        @Override
        public List<ReplayCommand> replay(int nodeId) {
            return List.of();
        }
    }
}
