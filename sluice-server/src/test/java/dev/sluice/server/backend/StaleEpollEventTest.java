package dev.sluice.server.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.server.auth.Credential;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A backend connect opened while the event loop handles one batch of epoll events, on the
 * descriptor a socket closed earlier in that batch held, receives that socket's event
 * (docs/ARCHITECTURE.md, "Stale epoll events"): it must still connect and log in. The order is
 * made, not waited for: the loop is held while two sockets become readable, X before A, so one
 * batch holds both; X's read closes A and opens the backend connection at once.
 */
class StaleEpollEventTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final long SERVER_CAPABILITIES = Capabilities.CLIENT_MYSQL | Capabilities.CLIENT_PROTOCOL_41
            | Capabilities.CLIENT_SECURE_CONNECTION | Capabilities.CLIENT_PLUGIN_AUTH
            | Capabilities.CLIENT_TRANSACTIONS | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_DEPRECATE_EOF;

    private EventLoopGroup group;
    private ServerSocket peers;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        Assumptions.assumeTrue(Epoll.isAvailable(), "the stale event is epoll's: this machine has no epoll");
        group = Transport.best().newGroup(1, "stale-epoll");
        peers = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
        if (peers != null) {
            peers.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aStaleReadEventDoesNotFailTheNewConnection() throws Exception {
        assertThat(connectWhileAStaleEventArrives(false).cause()).as("the connect and the login went on").isNull();
    }

    @Test
    void aStaleHangUpEventThatClosesTheNewSocketIsFollowedByASecondConnect() throws Exception {
        assertThat(connectWhileAStaleEventArrives(true).cause()).as("the connect and the login went on").isNull();
    }

    /**
     * X and A are connected on the loop; the loop is held while X's peer writes, then A's peer
     * writes (or, with {@code hangUp}, closes its side). X's read closes A and connects to a
     * scripted server; returns that connect's outcome.
     */
    private Future<BackendConnection> connectWhileAStaleEventArrives(boolean hangUp) throws Exception {
        EventLoop loop = group.next();
        FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(new HandshakeV10("10.11.19-MariaDB", 9, "0123456789abcdefghij".getBytes(
                    StandardCharsets.US_ASCII), SERVER_CAPABILITIES, 45, 2, NativePassword.PLUGIN_NAME));
            s.receive(1);
            s.send(2, FakeMysqlServer.ok());
        });
        closeAfter.add(server);
        CompletableFuture<Future<BackendConnection>> backend = new CompletableFuture<>();
        Channel[] a = new Channel[1];
        Channel x = open(loop, () -> {
            a[0].close();
            backend.complete(new TcpBackendConnector(Transport.best(), TIMEOUT, TIMEOUT).connect(loop, "ro1", 1,
                    new HostPort("127.0.0.1", server.port()), new LoginRequest("app", new Credential.PlainPassword(
                            "app".getBytes(StandardCharsets.UTF_8)), Optional.empty(), SERVER_CAPABILITIES, 45,
                            1 << 24, Map.of())));
        });
        Socket xPeer = accept();
        a[0] = open(loop, () -> { });
        Socket aPeer = accept();
        fillDescriptorsBelow(((EpollSocketChannel) a[0]).fd().intValue());

        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            held.countDown();
            await(release);
        });
        await(held);
        // epoll lists ready sockets in the order they became ready. Loopback delivers a write
        // within the writer's own system call, so the pauses only keep the order under a busy
        // machine's deferred delivery; a lost order makes the test pass without the stale event, it
        // cannot make it fail.
        xPeer.getOutputStream().write(1);
        Thread.sleep(50);
        if (hangUp) {
            aPeer.shutdownOutput();
        } else {
            aPeer.getOutputStream().write(1);
        }
        Thread.sleep(50);
        release.countDown();

        Future<BackendConnection> connected = backend.get(10, TimeUnit.SECONDS).awaitUninterruptibly();
        if (connected.isSuccess()) {
            connected.getNow().close();
            server.awaitScript();
        }
        x.close();
        return connected;
    }

    /** A plain channel on {@code loop}; {@code onFirstRead} runs on its first read. */
    private Channel open(EventLoop loop, Runnable onFirstRead) {
        return new Bootstrap().group(loop).channel(Transport.best().channelClass())
                .handler(new ChannelInboundHandlerAdapter() {
                    private boolean read;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        if (!read) {
                            read = true;
                            onFirstRead.run();
                        }
                    }
                }).connect("127.0.0.1", peers.getLocalPort()).syncUninterruptibly().channel();
    }

    private Socket accept() throws IOException {
        Socket s = peers.accept();
        closeAfter.add(s);
        return s;
    }

    /**
     * The kernel gives a new socket the lowest free descriptor: holes below A's (files closed
     * earlier in this JVM) are taken, so that the backend connection gets A's.
     */
    private void fillDescriptorsBelow(int fd) {
        while (true) {
            EpollSocketChannel filler = new EpollSocketChannel();
            closeAfter.add(() -> filler.unsafe().closeForcibly());
            if (filler.fd().intValue() > fd) {
                return;
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
