package dev.sluice.server.backend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.server.auth.Credential;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import java.util.Optional;

/**
 * The connection phase toward one backend, as a state machine fed one server packet at a time.
 *
 * <pre>
 *   greeting ──▶ HandshakeResponse41 ──▶ OK                         logged in
 *                                   ├──▶ AuthSwitchRequest ──▶ answer ──▶ OK
 *                                   ├──▶ caching_sha2: 0x01 0x03 (fast auth) ──▶ OK
 *                                   └──▶ ERR                         refused (error kept for the client)
 * </pre>
 *
 * <p>Answers {@code mysql_native_password} from SHA1(password) alone; {@code caching_sha2_password}
 * needs the plain password (the configuration's {@code users:} list) and a TLS link for its full
 * authentication, or the fast path when the server has the account cached.
 */
final class BackendLogin {
    private static final int MAX_PACKET_SIZE = 1 << 30;
    private static final String NATIVE = "mysql_native_password";
    private static final String CACHING_SHA2 = "caching_sha2_password";
    private static final int SCRAMBLE_LENGTH = 20;
    private static final int OK = 0x00;
    private static final int AUTH_MORE_DATA = 0x01;
    private static final int AUTH_SWITCH = 0xFE;
    private static final int ERR = 0xFF;

    private final LoginRequest request;
    private final String nodeName;
    private final ByteBufAllocator alloc;
    private HandshakeV10 greeting;
    private long capabilities;
    private byte[] seed;
    private String plugin;

    BackendLogin(LoginRequest request, String nodeName, ByteBufAllocator alloc) {
        this.request = request;
        this.nodeName = nodeName;
        this.alloc = alloc;
    }

    LoginStep onPacket(ByteBuf payload, int sequenceId) {
        try {
            return greeting == null ? onGreeting(payload, sequenceId) : onAuthPacket(payload, sequenceId);
        } catch (RuntimeException e) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' sent an unreadable login packet: "
                    + e.getMessage(), e));
        }
    }

    private LoginStep onGreeting(ByteBuf payload, int sequenceId) {
        if (payload.getUnsignedByte(payload.readerIndex()) == ERR) {
            return failure(payload);
        }
        greeting = HandshakeV10.decode(payload);
        seed = Arrays.copyOf(greeting.scramble(), SCRAMBLE_LENGTH);
        plugin = greeting.authPluginName().isEmpty() ? NATIVE : greeting.authPluginName();
        capabilities = BackendCapabilities.towardBackend(request.clientCapabilities(), greeting.capabilities(),
                request.database().isPresent());
        Optional<byte[]> answer = answer(plugin, seed);
        if (answer.isEmpty()) {
            // Ask for a plugin we can answer; the server will switch us if it must.
            plugin = NATIVE;
            answer = Optional.of(new byte[0]);
        }
        HandshakeResponse41 response = new HandshakeResponse41(capabilities, (int) Math.min(request.maxPacketSize(),
                MAX_PACKET_SIZE), request.collation(), request.user(), answer.get(), request.database(),
                Optional.of(plugin), request.connectAttributes());
        ByteBuf out = alloc.buffer();
        response.encode(out);
        return new LoginStep.Reply(out, sequenceId + 1);
    }

    private LoginStep onAuthPacket(ByteBuf payload, int sequenceId) {
        int first = payload.getUnsignedByte(payload.readerIndex());
        switch (first) {
            case OK:
                return new LoginStep.Success(greeting, capabilities);
            case ERR:
                return failure(payload);
            case AUTH_SWITCH: {
                AuthSwitchRequest sw = AuthSwitchRequest.decode(payload);
                plugin = sw.pluginName();
                seed = sw.seed();
                Optional<byte[]> answer = answer(plugin, seed);
                if (answer.isEmpty()) {
                    return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' wants authentication plugin '"
                            + plugin + "' for user '" + request.user() + "', which Sluice can only answer with the "
                            + "account's password: add the user to 'users:' in the configuration"));
                }
                return new LoginStep.Reply(alloc.buffer().writeBytes(answer.get()), sequenceId + 1);
            }
            case AUTH_MORE_DATA:
                return onMoreData(payload, sequenceId);
            default:
                return new LoginStep.Failure(new BackendException("backend '" + nodeName
                        + "' answered the login with an unexpected packet 0x" + Integer.toHexString(first)));
        }
    }

    private LoginStep onMoreData(ByteBuf payload, int sequenceId) {
        final int fastAuthSuccess = 0x03;
        final int fullAuthRequired = 0x04;
        if (!CACHING_SHA2.equals(plugin) || payload.readableBytes() < 2) {
            return new LoginStep.Wait();
        }
        int status = payload.getUnsignedByte(payload.readerIndex() + 1);
        if (status == fastAuthSuccess) {
            return new LoginStep.Wait();
        }
        if (status == fullAuthRequired) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' requires full "
                    + "caching_sha2_password authentication for '" + request.user() + "', which needs a TLS link to "
                    + "that backend (tls: required on the node) or one successful login to warm its cache"));
        }
        return new LoginStep.Wait();
    }

    private Optional<byte[]> answer(String pluginName, byte[] challenge) {
        Credential credential = request.credential();
        if (NATIVE.equals(pluginName)) {
            if (credential instanceof Credential.NativeHash hash) {
                return Optional.of(NativePassword.scrambleWithStage1(hash.stage1(), challenge));
            }
            Credential.PlainPassword plain = (Credential.PlainPassword) credential;
            return Optional.of(NativePassword.scramble(plain.password(), challenge));
        }
        if (CACHING_SHA2.equals(pluginName) && credential instanceof Credential.PlainPassword plain) {
            return Optional.of(CachingSha2Password.scramble(plain.password(), challenge));
        }
        return Optional.empty();
    }

    private LoginStep failure(ByteBuf payload) {
        ErrPacket err = ErrPacket.decode(payload);
        return new LoginStep.Failure(new BackendException(
                new BackendException.ServerError(err.errorCode(), err.sqlState(), err.message())));
    }

    /** Whether the negotiated session uses CLIENT_DEPRECATE_EOF (decides how results end). */
    static boolean deprecateEof(long capabilities) {
        return Capabilities.has(capabilities, Capabilities.CLIENT_DEPRECATE_EOF);
    }
}
