package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.ServerStatus;
import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.handshake.SslRequest;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.auth.AuthOutcome;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.runtime.EndpointRuntime;
import dev.sluice.server.runtime.ProxyRuntime;
import dev.sluice.server.runtime.ServerIdentity;
import dev.sluice.server.tls.ClientTls;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection phase, Sluice as the server: greeting, the client's login, an auth switch if
 * its plugin is not the one Sluice can check, the password check against the primary's
 * accounts, and the first backend login. Then the channel is handed to a {@link ClientSession}.
 *
 * <pre>
 *   greeting(scramble) ─┬────────────────────────────▶ HandshakeResponse41 ──▶ check ──▶ first backend ──▶ OK ──▶ session
 *   (CLIENT_SSL)        └─▶ SSLRequest ─▶ TLS handshake ─┘       │  ├──▶ AuthSwitchRequest ──▶ answer ──▶ check
 *                                                                │  └──▶ 0x01 0x04 (full auth, TLS) ──▶ password ──▶ check
 *                                                                └──▶ ERR 1045 / 1043, close
 * </pre>
 *
 * <p>A client that says nothing, or too little, is cut at the handshake timeout (which covers the
 * TLS handshake too, and ends once the client is authenticated). An address with too many failed logins is refused before the greeting (ERR
 * 1129), and so is, once its name is read, an account blocked from that address; every wrong
 * password or unknown user counts toward both limits (docs/SECURITY.md). An endpoint with
 * {@code require-tls} and an account that {@code REQUIRE}s SSL refuse a login that did not come
 * over TLS.
 */
final class ClientHandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ClientHandshakeHandler.class);

    private final ProxyRuntime proxy;
    private final EndpointRuntime endpoint;
    private final long connectionId;
    private final byte[] scramble = Scramble.fresh();
    private ScheduledFuture<?> timeout;
    private HandshakeResponse41 login;
    private long capabilities;
    private int nextSequence;
    private boolean awaitingSwitchAnswer;
    private String switchedPlugin = Authenticator.NATIVE;
    private boolean awaitingClearPassword;
    private boolean secure;
    private boolean busy;
    private boolean reloaded;
    /** The login's decision, waiting for the accounts to be read again; null when not waiting. */
    private Runnable decisionAwaitingAccounts;
    private boolean counted;
    private boolean done;

    ClientHandshakeHandler(ProxyRuntime proxy, EndpointRuntime endpoint) {
        this.proxy = proxy;
        this.endpoint = endpoint;
        this.connectionId = proxy.nextConnectionId();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long offered = offeredCapabilities();
        String host = clientHost(ctx);
        Optional<String> blocked = FailedLogins.addressRefusal(proxy.clientSecurity().logins(), host);
        if (blocked.isPresent()) {
            refuse(ctx, 0, ErrorCodes.ER_HOST_IS_BLOCKED, ErrorCodes.SQLSTATE_GENERAL, blocked.get());
            return;
        }
        if (!endpoint.trySessionStarted()) {
            refuse(ctx, 0, ErrorCodes.ER_CON_COUNT_ERROR, "08004", "Too many connections");
            return;
        }
        counted = true;
        ServerIdentity id = proxy.identity();
        HandshakeV10 greeting = new HandshakeV10(id.serverVersion(), connectionId, scramble, offered, id.collation(),
                ServerStatus.AUTOCOMMIT, Authenticator.NATIVE);
        ByteBuf out = ctx.alloc().buffer();
        int start = Packets.beginPacket(out);
        greeting.encode(out);
        Packets.endPacket(out, start, 0);
        ctx.writeAndFlush(out);
        armTimeout(ctx);
        ctx.fireChannelActive();
    }

    private void armTimeout(ChannelHandlerContext ctx) {
        long ms = proxy.config().limits().handshakeTimeout().toMillis();
        timeout = ctx.executor().schedule(() -> {
            if (done) {
                return;
            }
            if (decisionAwaitingAccounts != null) {
                // The client did its part; the accounts' second read is Sluice's own wait and may not
                // cost the client a 1043. The answer comes from the accounts held (a 1045 stays a 1045).
                LOG.info("client {}: the accounts were not read again within {} ms; deciding its login with the "
                        + "accounts held", ctx.channel().remoteAddress(), ms);
                decisionAwaitingAccounts.run();
                if (!done && !busy) {
                    armTimeout(ctx);
                }
                return;
            }
            // Said at INFO with what was awaited: a login refused for slowness must be explainable
            // from the log (a client's cold TLS start on a saturated machine looks like a hang).
            LOG.info("client {} did not log in within {} ms: it was waiting for {}", ctx.channel().remoteAddress(),
                    ms, waitingFor(ctx));
            refuse(ctx, nextSequence, ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "Bad handshake: no login within " + ms + " ms");
        }, ms, TimeUnit.MILLISECONDS);
    }

    /** What the login was waiting for, in words for the log. */
    private String waitingFor(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl != null && !ssl.handshakeFuture().isDone()) {
            return "the client's TLS handshake";
        }
        return login == null ? "the client's login" + (secure ? " after TLS" : "")
                : awaitingSwitchAnswer ? "the client's answer to the authentication switch (" + switchedPlugin + ")"
                : awaitingClearPassword ? "the client's password"
                : busy ? "the accounts to be read again from the primary" : "the client";
    }

    private long offeredCapabilities() {
        return dev.sluice.server.backend.BackendCapabilities.offeredToClients(proxy.identity().capabilities(),
                proxy.clientSecurity().tls().isPresent());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientFrameDecoder.OversizedPacket big) {
            refuse(ctx, big.sequenceId() + 1, ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "Bad handshake: login packet too large");
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (done || busy) {
                // A client must wait for our answer during the login; anything else is a protocol error.
                refuse(ctx, nextSequence, ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                        "Bad handshake: unexpected packet during login");
                return;
            }
            int seq = Packets.sequenceId(frame, frame.readerIndex());
            nextSequence = (seq + 1) & Packets.SEQUENCE_MASK;
            ByteBuf payload = frame.slice(frame.readerIndex() + Packets.HEADER_SIZE,
                    frame.readableBytes() - Packets.HEADER_SIZE);
            if (awaitingSwitchAnswer) {
                awaitingSwitchAnswer = false;
                byte[] answer = new byte[payload.readableBytes()];
                payload.readBytes(answer);
                check(ctx, switchedPlugin, answer);
                return;
            }
            if (awaitingClearPassword) {
                awaitingClearPassword = false;
                byte[] password = ClearPassword.read(payload);
                String user = login.username();
                String host = clientHost(ctx);
                decide(ctx, () -> proxy.authenticator().checkClearPassword(user, host, password, secure),
                        password.length > 0, false);
                return;
            }
            if (SslRequest.isSslRequest(payload)) {
                Optional<ClientTls> tls = proxy.clientSecurity().tls();
                if (tls.isEmpty() || login != null || secure) {
                    refuse(ctx, nextSequence, ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                            tls.isEmpty() ? "TLS is not enabled on endpoint '" + endpoint.name()
                                    + "'; connect without SSL" : "Bad handshake: unexpected SSL request");
                    return;
                }
                secure = true;
                ClientTlsStart.start(ctx, tls.get());
                return;
            }
            login = HandshakeResponse41.decode(payload);
            capabilities = login.capabilities() & offeredCapabilities();
            if (endpoint.config().requireTls() && !secure) {
                String host = clientHost(ctx);
                LOG.info("login refused for '{}' from {}: endpoint '{}' requires TLS", login.username(), host,
                        endpoint.name());
                refuse(ctx, nextSequence, ErrorCodes.ER_ACCESS_DENIED_ERROR, ErrorCodes.SQLSTATE_ACCESS_DENIED,
                        "Access denied for user '" + login.username() + "'@'" + host + "': endpoint '" + endpoint.name()
                                + "' requires TLS; connect with SSL (e.g. mariadb --ssl, sslMode=REQUIRED)");
                return;
            }
            Optional<String> accountBlocked = FailedLogins.accountRefusal(proxy.clientSecurity().logins(),
                    clientHost(ctx), login.username());
            if (accountBlocked.isPresent()) {
                refuse(ctx, nextSequence, ErrorCodes.ER_HOST_IS_BLOCKED, ErrorCodes.SQLSTATE_GENERAL,
                        accountBlocked.get());
                return;
            }
            check(ctx, login.authPluginName().orElse(Authenticator.NATIVE), login.authResponse());
        } catch (MalformedPacketException e) {
            refuse(ctx, nextSequence, ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "Bad handshake: " + e.getMessage());
        } finally {
            frame.release();
        }
    }

    private void check(ChannelHandlerContext ctx, String plugin, byte[] answer) {
        String user = login.username();
        String host = clientHost(ctx);
        decide(ctx, () -> proxy.authenticator().check(user, host, plugin, scramble, answer, secure, true),
                answer.length > 0, CachingSha2Password.PLUGIN_NAME.equals(plugin));
    }

    /**
     * Acts on a login check: switch plugin, ask for the full password, refuse (after one account
     * reload), or log in.
     *
     * @param fastAuthReply a caching_sha2_password scramble was accepted: say so (0x01 0x03) before the OK
     */
    private void decide(ChannelHandlerContext ctx, Supplier<AuthOutcome> attempt, boolean passwordGiven,
            boolean fastAuthReply) {
        String host = clientHost(ctx);
        AuthOutcome outcome = attempt.get();
        if (outcome instanceof AuthOutcome.FullAuthentication) {
            awaitingClearPassword = true;
            ctx.writeAndFlush(authMoreData(ctx, CachingSha2Password.PERFORM_FULL_AUTHENTICATION));
            return;
        }
        if (outcome instanceof AuthOutcome.SwitchPlugin sw) {
            awaitingSwitchAnswer = true;
            switchedPlugin = sw.plugin();
            ByteBuf out = ctx.alloc().buffer();
            int start = Packets.beginPacket(out);
            AuthSwitchRequest.withSeed(sw.plugin(), scramble).encode(out);
            nextSequence = Packets.endPacket(out, start, nextSequence);
            ctx.writeAndFlush(out);
            return;
        }
        if (!reloaded && AccountRecheck.needed(outcome, proxy.authenticator().accounts())) {
            // The account may have been created, changed or dropped a moment ago: look again, once,
            // with accounts read after this check.
            reloaded = true;
            busy = true;
            Runnable decideAgain = () -> {
                if (decisionAwaitingAccounts == null) {
                    return;
                }
                decisionAwaitingAccounts = null;
                busy = false;
                if (ctx.channel().isActive()) {
                    decide(ctx, attempt, passwordGiven, fastAuthReply);
                }
            };
            decisionAwaitingAccounts = decideAgain;
            proxy.authenticator().accounts().refreshed().whenComplete((v, e) -> ctx.executor().execute(decideAgain));
            return;
        }
        if (outcome instanceof AuthOutcome.Denied denied) {
            LOG.info("login refused for '{}' from {}: {}", login.username(), host, denied.detail());
            if (denied.reason().isGuess()) {
                FailedLogins.count(proxy.clientSecurity().logins(), host, login.username());
            }
            String message = denied.reason() == AuthOutcome.Reason.UNSUPPORTED_PLUGIN ? denied.detail()
                    : "Access denied for user '" + login.username() + "'@'" + host + "' (using password: "
                            + (passwordGiven ? "YES" : "NO") + ")";
            refuse(ctx, nextSequence, ErrorCodes.ER_ACCESS_DENIED_ERROR, ErrorCodes.SQLSTATE_ACCESS_DENIED, message);
            return;
        }
        AuthOutcome.Accepted ok = (AuthOutcome.Accepted) outcome;
        if (fastAuthReply) {
            ctx.write(authMoreData(ctx, CachingSha2Password.FAST_AUTH_SUCCESS));
        }
        startSession(ctx, ok, host);
    }

    /** A caching_sha2_password status packet, in the form this client reads (see {@link AuthMoreDataForm}). */
    private ByteBuf authMoreData(ChannelHandlerContext ctx, int status) {
        ByteBuf out = ctx.alloc().buffer();
        int start = Packets.beginPacket(out);
        out.writeBytes(AuthMoreDataForm.payload(status, login.connectAttributes(), proxy.identity().serverVersion()));
        nextSequence = Packets.endPacket(out, start, nextSequence);
        return out;
    }

    private void startSession(ChannelHandlerContext ctx, AuthOutcome.Accepted ok, String host) {
        // The client has done its part: the handshake timeout guards against clients that are slow
        // to log in, not against Sluice's own wait for a backend, which the connector's timeouts and
        // the pool's wait timeout bound. A stampede of logins on a transaction pool waits there.
        timeout.cancel(false);
        Map<String, String> attributes = new LinkedHashMap<>(login.connectAttributes());
        attributes.put("_sluice_client", host);
        ClientIdentity identity = new ClientIdentity(login.username(), ok.credential(), host, capabilities,
                login.collation(), login.maxPacketSize(), Map.copyOf(attributes));
        ClientSession session = new ClientSession(ctx.channel(), proxy, endpoint, connectionId, scramble, identity,
                login.database().filter(d -> !d.isEmpty()));
        busy = true;
        int sequence = nextSequence;
        session.firstBackend().open(new FirstBackend.Login() {
            @Override
            public void loggedIn() {
                busy = false;
                ClientHandshakeHandler.this.loggedIn(ctx, session);
            }

            @Override
            public void refused(int code, String sqlState, String message) {
                busy = false;
                refuse(ctx, sequence, code, sqlState, message);
            }
        });
    }

    /** The session is live: this handler hands the client over to it. */
    private void loggedIn(ChannelHandlerContext ctx, ClientEvents session) {
        done = true;
        timeout.cancel(false);
        ByteBuf out = Replies.ok(ctx.alloc(), nextSequence, capabilities, ServerStatus.AUTOCOMMIT);
        ctx.pipeline().replace(this, "session",
                new ClientSessionHandler(session, connectionId, proxy.config().limits().idleTimeout()));
        ctx.writeAndFlush(out);
    }

    private static String clientHost(ChannelHandlerContext ctx) {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
            // RFC 5952 form (::1), as the server writes hosts and as accounts name them.
            return io.netty.util.NetUtil.toAddressString(a.getAddress());
        }
        return "unknown";
    }

    private void refuse(ChannelHandlerContext ctx, int seq, int code, String state, String message) {
        if (done) {
            return;
        }
        done = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (secure && (ssl == null || !ssl.handshakeFuture().isDone())) {
            // No way to send an error before TLS is up (it would wait for a handshake that may never come).
            ctx.close();
            return;
        }
        long caps = capabilities != 0 ? capabilities : Capabilities.CLIENT_PROTOCOL_41;
        ctx.writeAndFlush(Replies.error(ctx.alloc(), seq, caps, code, state, message))
                .addListener(f -> ctx.close());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (counted) {
            // Still in the login: the session handler, which would count the end, never took over.
            endpoint.sessionEnded();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("client {} during login: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
