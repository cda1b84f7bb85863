package dev.sluice.server.frontend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.packet.Packets;
import dev.sluice.protocol.response.ErrorCodes;
import dev.sluice.server.auth.AuthOutcome;
import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.auth.LoginThrottle;
import dev.sluice.server.backend.BackendConnection;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.LoginRequest;
import dev.sluice.server.runtime.NodeRef;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * COM_CHANGE_USER, answered by Sluice: the new user is checked against Sluice's scramble like a
 * login, then the session starts over — backends closed, statements forgotten — and its first
 * backend is opened as the new user (so a refused database is reported now, as the server would).
 */
final class ChangeUser {
    private final CurrentCommand command;
    private final LocalAnswers answers;
    private final ClientReplies replies;
    private final SessionLogin login;
    private final SessionRestart restart;
    private final Authenticator authenticator;
    private final Supplier<LoginThrottle> logins;
    private final BackendConnector connector;
    private final EventLoop loop;
    private final BooleanSupplier secure;
    private final Supplier<Optional<NodeRef>> firstNode;
    private final String endpointName;
    private String user;
    private Optional<String> database = Optional.empty();
    private int collation;
    private Map<String, String> attributes = Map.of();

    /**
     * @param logins the failed-login counts that may block the new account
     * @param secure whether the client came over TLS (for accounts that REQUIRE SSL)
     * @param firstNode where the session's first backend goes, which checks the new user's login
     */
    ChangeUser(CurrentCommand command, LocalAnswers answers, ClientReplies replies, SessionLogin login,
            SessionRestart restart, Authenticator authenticator, Supplier<LoginThrottle> logins,
            BackendConnector connector, EventLoop loop, BooleanSupplier secure, Supplier<Optional<NodeRef>> firstNode,
            String endpointName) {
        this.command = command;
        this.answers = answers;
        this.replies = replies;
        this.login = login;
        this.restart = restart;
        this.authenticator = authenticator;
        this.logins = logins;
        this.connector = connector;
        this.loop = loop;
        this.secure = secure;
        this.firstNode = firstNode;
        this.endpointName = endpointName;
    }

    void start(CommandFrame f) {
        command.hold();
        ByteBuf frame = f.bytes();
        String plugin;
        byte[] answer;
        try {
            ByteBuf p = frame.slice(frame.readerIndex() + Packets.HEADER_SIZE + 1,
                    Packets.payloadLength(frame, frame.readerIndex()) - 1);
            long caps = login.identity().capabilities();
            user = Fields.readNulString(p, StandardCharsets.UTF_8, "user");
            if (Capabilities.has(caps, Capabilities.CLIENT_SECURE_CONNECTION)) {
                answer = Fields.readFixed(p, Fields.readInt1(p, "auth length"), "auth response");
            } else {
                answer = Fields.readNulBytes(p, "auth response");
            }
            String db = p.isReadable() ? Fields.readNulString(p, StandardCharsets.UTF_8, "database") : "";
            database = db.isEmpty() ? Optional.empty() : Optional.of(db);
            collation = p.readableBytes() >= 2 ? Fields.readInt2(p, "charset") : login.identity().collation();
            plugin = Capabilities.has(caps, Capabilities.CLIENT_PLUGIN_AUTH) && p.isReadable()
                    ? Fields.readNulString(p, StandardCharsets.UTF_8, "plugin") : "mysql_native_password";
            attributes = login.identity().connectAttributes();
        } catch (MalformedPacketException e) {
            f.release();
            command.failAndClose(ErrorCodes.ER_HANDSHAKE_ERROR, ErrorCodes.SQLSTATE_COMMUNICATION,
                    "malformed COM_CHANGE_USER: " + e.getMessage());
            return;
        }
        f.release();
        String host = login.identity().clientHost();
        Optional<String> blocked = FailedLogins.accountRefusal(logins.get(), host, user);
        if (blocked.isPresent()) {
            command.failed(ErrorCodes.ER_HOST_IS_BLOCKED, ErrorCodes.SQLSTATE_GENERAL, blocked.get());
            return;
        }
        check(plugin, answer, true);
    }

    private void check(String plugin, byte[] answer, boolean mayReload) {
        String host = login.identity().clientHost();
        // TLS counts for accounts that REQUIRE SSL; full authentication is for the login only.
        AuthOutcome outcome = authenticator.check(user, host, plugin, login.scramble(), answer,
                secure.getAsBoolean(), false);
        if (outcome instanceof AuthOutcome.SwitchPlugin sw) {
            ByteBuf out = replies.alloc().buffer();
            int start = Packets.beginPacket(out);
            AuthSwitchRequest.withSeed(sw.plugin(), login.scramble()).encode(out);
            Packets.endPacket(out, start, replies.sequence());
            command.takeNextFrame(next -> {
                byte[] again = new byte[Packets.payloadLength(next, next.readerIndex())];
                next.getBytes(next.readerIndex() + Packets.HEADER_SIZE, again);
                next.release();
                check(sw.plugin(), again, mayReload);
            });
            replies.send(out);
            return;
        }
        if (mayReload && AccountRecheck.needed(outcome, authenticator.accounts())) {
            authenticator.accounts().refreshed().whenComplete((v, e) ->
                    loop.execute(() -> check(plugin, answer, false)));
            return;
        }
        if (outcome instanceof AuthOutcome.Denied denied) {
            if (denied.reason().isGuess()) {
                FailedLogins.count(logins.get(), host, user);
            }
            command.failed(ErrorCodes.ER_ACCESS_DENIED_ERROR, ErrorCodes.SQLSTATE_ACCESS_DENIED,
                    "Access denied for user '" + user + "'@'" + host + "' (using password: "
                            + (answer.length > 0 ? "YES" : "NO") + ")");
            return;
        }
        AuthOutcome.Accepted ok = (AuthOutcome.Accepted) outcome;
        ClientIdentity old = login.identity();
        ClientIdentity next = new ClientIdentity(user, ok.credential(), host, old.capabilities(), collation,
                old.maxPacketSize(), attributes);
        Optional<String> nextDatabase = database;
        var first = firstNode.get();
        if (first.isEmpty()) {
            command.failed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                    "no backend available for endpoint '" + endpointName + "'");
            return;
        }
        NodeRef node = first.get();
        LoginRequest login = new LoginRequest(next.user(), next.credential(), nextDatabase, next.capabilities(),
                next.collation(), next.maxPacketSize(), next.connectAttributes());
        // Log in as the new user first; the session changes only once a backend has accepted it. A
        // refused change (e.g. no access to the database) leaves the old user in place, as the server does.
        connector.connect(loop, node.name(), node.id(), node.address(), login)
                .addListener(f -> {
                    if (command.sessionClosed()) {
                        if (f.isSuccess()) {
                            ((BackendConnection) f.getNow()).close();
                        }
                        return;
                    }
                    if (!f.isSuccess()) {
                        if (f.cause() instanceof BackendException be && be.serverError().isPresent()) {
                            BackendException.ServerError e = be.serverError().get();
                            command.failed(e.code(), e.sqlState(), e.message());
                        } else {
                            command.failed(ErrorCodes.ER_UNKNOWN_ERROR, ErrorCodes.SQLSTATE_GENERAL,
                                    "backend '" + node.name() + "' is unavailable: " + f.cause().getMessage());
                        }
                        return;
                    }
                    restart.asUser(next, nextDatabase, (BackendConnection) f.getNow());
                    command.done();
                    answers.ok();
                    command.resume();
                });
    }
}
