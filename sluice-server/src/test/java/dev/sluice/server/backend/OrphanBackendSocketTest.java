package dev.sluice.server.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.server.auth.Credential;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.Sockets;
import dev.sluice.server.net.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a backend socket outlives its I/O thread, made on purpose: Netty's I/O thread, asked to end
 * (with no quiet period, as Sluice stops) while it runs a task, ends without closing the channels
 * registered with it, and their sockets stay open on the server. Sluice closes its sockets itself
 * before it ends its threads ({@link Sockets#closeAll}); {@link TcpBackendConnector#closeOrphans}
 * closes and names any still open once the threads have ended.
 */
class OrphanBackendSocketTest {
    /** Long enough that the login (the fake node never greets) does not fail during the test. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aThreadAskedToEndWhileRunningATaskEndsWithoutClosingItsSockets() throws Exception {
        EventLoopGroup group = Transport.best().newGroup(1, "orphan-test");
        try (ServerSocket node = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            TcpBackendConnector connector = new TcpBackendConnector(Transport.best(), TIMEOUT, TIMEOUT);
            connector.connect(group.next(), "primary", 0, new HostPort("127.0.0.1", node.getLocalPort()), login());
            Socket serverEnd = node.accept();

            endWhileBusy(group);
            assertThatThrownBy(() -> endOfStream(serverEnd)).as("the socket, still open after its thread ended")
                    .isInstanceOf(SocketTimeoutException.class);

            // The socket's name holds its local port (its remote address too, once Netty saw it connected).
            assertThat(connector.closeOrphans()).singleElement().asString()
                    .containsPattern(":" + serverEnd.getPort() + "\\D").contains("registered true");
            assertThat(endOfStream(serverEnd)).as("the orphan, closed now").isTrue();
            assertThat(connector.closeOrphans()).isEmpty();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void socketsClosedBeforeTheThreadEndsAreClosedWhateverTheThreadWasDoing() throws Exception {
        EventLoopGroup group = Transport.best().newGroup(1, "orphan-test");
        try (ServerSocket node = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            TcpBackendConnector connector = new TcpBackendConnector(Transport.best(), TIMEOUT, TIMEOUT);
            HostPort address = new HostPort("127.0.0.1", node.getLocalPort());
            connector.connect(group.next(), "primary", 0, address, login());
            Socket serverEnd = node.accept();

            CountDownLatch release = busy(group);
            // Asked while the thread is busy, so still connecting when closed: a socket closed before it
            // connected is not connected again once Sluice is stopping.
            Future<BackendConnection> connecting = connector.connect(group.next(), "ro1", 1, address, login());
            ChannelGroupFuture closing = connector.closeAll();
            release.countDown();
            assertThat(Sockets.awaitClosed(TIMEOUT, closing)).as("sockets still open after the wait").isZero();
            assertThat(connecting.awaitUninterruptibly(TIMEOUT.toMillis())).isTrue();
            assertThat(connecting.isSuccess()).isFalse();
            assertThat(connector.connect(group.next(), "ro2", 2, address, login()).cause())
                    .hasMessageContaining("Sluice is stopping");

            endWhileBusy(group);
            assertThat(endOfStream(serverEnd)).isTrue();
            assertThat(connector.closeOrphans()).isEmpty();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Asks the group's only thread to end while it runs a task, and waits until it has ended: the
     * thread finishes its round of tasks, finds the end asked and stops, without the step that closes
     * its channels (that step runs at the top of a round, before the tasks).
     */
    private static void endWhileBusy(EventLoopGroup group) throws InterruptedException {
        CountDownLatch release = busy(group);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        release.countDown();
        assertThat(group.awaitTermination(10, TimeUnit.SECONDS)).as("the I/O thread ended").isTrue();
    }

    /** Makes the group's thread run a task until the latch returned is counted down. */
    private static CountDownLatch busy(EventLoopGroup group) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        group.next().execute(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).as("the I/O thread runs the task").isTrue();
        return release;
    }

    private static LoginRequest login() {
        return new LoginRequest("app", new Credential.PlainPassword("app".getBytes(StandardCharsets.UTF_8)),
                Optional.empty(), 0, 45, 1 << 24, Map.of());
    }

    /** Whether the peer closed its end: a read sees the end of the stream within a few seconds. */
    private static boolean endOfStream(Socket s) throws IOException {
        s.setSoTimeout(3_000);
        return s.getInputStream().read() == -1;
    }
}
