package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.auth.AuthOutcome;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * COM_CHANGE_USER, answered by Sluice: the new user is checked against Sluice's scramble like a
 * login, then the session starts over — backends closed, statements forgotten — and its first
 * backend is opened as the new user (so a refused database is reported now, as the server would).
 */
final class ChangeUser {
    private final ClientSession session;
    private String user;
    private Optional<String> database = Optional.empty();
    private int collation;
    private Map<String, String> attributes = Map.of();

    ChangeUser(ClientSession session) {
        this.session = session;
    }

    void start(ByteBuf frame) {
        session.holdCommand();
        String plugin;
        byte[] answer;
        try {
            ByteBuf p = frame.slice(frame.readerIndex() + Packets.HEADER_SIZE + 1,
                    Packets.payloadLength(frame, frame.readerIndex()) - 1);
            long caps = session.identity().capabilities();
            user = Fields.readNulString(p, StandardCharsets.UTF_8, "user");
            if (Capabilities.has(caps, Capabilities.CLIENT_SECURE_CONNECTION)) {
                answer = Fields.readFixed(p, Fields.readInt1(p, "auth length"), "auth response");
            } else {
                answer = Fields.readNulBytes(p, "auth response");
            }
            String db = p.isReadable() ? Fields.readNulString(p, StandardCharsets.UTF_8, "database") : "";
            database = db.isEmpty() ? Optional.empty() : Optional.of(db);
            collation = p.readableBytes() >= 2 ? Fields.readInt2(p, "charset") : session.identity().collation();
            plugin = Capabilities.has(caps, Capabilities.CLIENT_PLUGIN_AUTH) && p.isReadable()
                    ? Fields.readNulString(p, StandardCharsets.UTF_8, "plugin") : "mysql_native_password";
            attributes = session.identity().connectAttributes();
        } catch (MalformedPacketException e) {
            frame.release();
            session.failAndClose(ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "malformed COM_CHANGE_USER: " + e.getMessage());
            return;
        }
        frame.release();
        String host = session.identity().clientHost();
        Optional<String> blocked = FailedLogins.accountRefusal(session.proxy().clientSecurity().logins(), host, user);
        if (blocked.isPresent()) {
            session.commandFailed(ErrorCodes.ER_HOST_IS_BLOCKED, ErrorCodes.SQLSTATE_GENERAL, blocked.get());
            return;
        }
        check(plugin, answer, true);
    }

    private void check(String plugin, byte[] answer, boolean mayReload) {
        String host = session.identity().clientHost();
        // TLS counts for accounts that REQUIRE SSL; full authentication is for the login only.
        boolean secure = session.client().pipeline().get(io.netty.handler.ssl.SslHandler.class) != null;
        AuthOutcome outcome = session.proxy().authenticator().check(user, host, plugin, session.scramble(), answer,
                secure, false);
        if (outcome instanceof AuthOutcome.SwitchPlugin sw) {
            ByteBuf out = session.client().alloc().buffer();
            int start = Packets.beginPacket(out);
            AuthSwitchRequest.withSeed(sw.plugin(), session.scramble()).encode(out);
            Packets.endPacket(out, start, session.replies().sequence());
            session.onNextFrame(next -> {
                byte[] again = new byte[Packets.payloadLength(next, next.readerIndex())];
                next.getBytes(next.readerIndex() + Packets.HEADER_SIZE, again);
                next.release();
                check(sw.plugin(), again, mayReload);
            });
            session.client().writeAndFlush(out, session.client().voidPromise());
            return;
        }
        if (mayReload && AccountRecheck.needed(outcome, session.proxy().authenticator().accounts())) {
            session.proxy().authenticator().accounts().refreshed().whenComplete((v, e) ->
                    session.client().eventLoop().execute(() -> check(plugin, answer, false)));
            return;
        }
        if (outcome instanceof AuthOutcome.Denied denied) {
            if (denied.reason().isGuess()) {
                FailedLogins.count(session.proxy().clientSecurity().logins(), host, user);
            }
            session.commandFailed(ErrorCodes.ER_ACCESS_DENIED_ERROR, ErrorCodes.SQLSTATE_ACCESS_DENIED,
                    "Access denied for user '" + user + "'@'" + host + "' (using password: "
                            + (answer.length > 0 ? "YES" : "NO") + ")");
            return;
        }
        AuthOutcome.Accepted ok = (AuthOutcome.Accepted) outcome;
        ClientIdentity old = session.identity();
        ClientIdentity next = new ClientIdentity(user, ok.credential(), host, old.capabilities(), collation,
                old.maxPacketSize(), attributes);
        Optional<String> nextDatabase = database;
        var first = session.firstNode();
        if (first.isEmpty()) {
            session.commandFailed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                    "no backend available for endpoint '" + session.endpoint().name() + "'");
            return;
        }
        NodeRef node = first.get();
        LoginRequest login = new LoginRequest(next.user(), next.credential(), nextDatabase, next.capabilities(),
                next.collation(), next.maxPacketSize(), next.connectAttributes());
        // Log in as the new user first; the session changes only once a backend has accepted it. A
        // refused change (e.g. no access to the database) leaves the old user in place, as the server does.
        session.proxy().connector().connect(session.client().eventLoop(), node.name(), node.id(), node.address(), login)
                .addListener(f -> {
                    if (session.isClosed()) {
                        if (f.isSuccess()) {
                            ((BackendConnection) f.getNow()).close();
                        }
                        return;
                    }
                    if (!f.isSuccess()) {
                        if (f.cause() instanceof BackendException be && be.serverError().isPresent()) {
                            BackendException.ServerError e = be.serverError().get();
                            session.commandFailed(e.code(), e.sqlState(), e.message());
                        } else {
                            session.commandFailed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                                    "backend '" + node.name() + "' is unavailable: " + f.cause().getMessage());
                        }
                        return;
                    }
                    session.backends().closeAll(false);
                    session.statements().clear();
                    session.identity(next, nextDatabase);
                    session.resetRoutingState();
                    session.backends().adopt((BackendConnection) f.getNow());
                    session.commandDone();
                    session.replyOk();
                    session.resume();
                });
    }
}
