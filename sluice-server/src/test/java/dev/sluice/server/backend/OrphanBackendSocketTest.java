package dev.sluice.server.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.server.auth.Credential;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.Transport;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An ended I/O thread closes the channels registered with it; a backend socket that lost its
 * registration stays open on the server after Sluice stopped. {@link TcpBackendConnector#closeOrphans}
 * finds every socket still open once its thread has ended, closes it and says what it was. The lost
 * registration is made here with a deregister.
 */
class OrphanBackendSocketTest {
    /** Long enough that neither login (the fake node never greets) fails during the test. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aSocketLeftOpenAfterItsThreadEndedIsClosedAndNamed() throws Exception {
        EventLoopGroup group = Transport.best().newGroup(1, "orphan-test");
        try (ServerSocket node = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            TcpBackendConnector connector = new TcpBackendConnector(Transport.best(), TIMEOUT, TIMEOUT);
            connector.connect(group.next(), "primary", 0, new HostPort("127.0.0.1", node.getLocalPort()), login());
            Socket keptEnd = node.accept();
            connector.connect(group.next(), "ro1", 1, new HostPort("127.0.0.1", node.getLocalPort()), login());
            Socket orphanEnd = node.accept();
            Channel orphan = channelTo(connector, orphanEnd);
            orphan.deregister().syncUninterruptibly();

            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            assertThatThrownBy(() -> endOfStream(orphanEnd)).as("the orphan, still open after its thread ended")
                    .isInstanceOf(SocketTimeoutException.class);

            List<String> orphans = connector.closeOrphans();
            assertThat(orphans).anySatisfy(o -> assertThat(o).contains(":" + orphanEnd.getPort() + " ",
                    "registered false"));
            assertThat(endOfStream(orphanEnd)).as("the orphan, closed now").isTrue();
            assertThat(endOfStream(keptEnd)).as("the registered socket").isTrue();
            assertThat(connector.closeOrphans()).isEmpty();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static LoginRequest login() {
        return new LoginRequest("app", new Credential.PlainPassword("app".getBytes(StandardCharsets.UTF_8)),
                Optional.empty(), 0, 45, 1 << 24, Map.of());
    }

    /** The channel whose socket the node accepted as {@code serverEnd}, once its connect is complete. */
    private static Channel channelTo(TcpBackendConnector connector, Socket serverEnd) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (Channel c : connector.openSockets()) {
                if (c.localAddress() instanceof InetSocketAddress a && a.getPort() == serverEnd.getPort()) {
                    return c;
                }
            }
            assertThat(System.nanoTime()).as("the connect of the socket on port %d completed", serverEnd.getPort())
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Whether the peer closed its end: a read sees the end of the stream within a few seconds. */
    private static boolean endOfStream(Socket s) throws IOException {
        s.setSoTimeout(3_000);
        return s.getInputStream().read() == -1;
    }
}
