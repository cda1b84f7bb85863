package dev.sluice.server.backend;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.handshake.SslRequest;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.server.auth.Credential;
import dev.sluice.server.net.NodeTls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The connection phase toward one backend, as a state machine fed one server packet at a time.
 *
 * <pre>
 *   greeting ─┬──────────────────────────────▶ HandshakeResponse41 ──▶ OK             logged in
 *             └─▶ SSLRequest ─▶ TLS handshake ─┘                  ├──▶ AuthSwitchRequest ──▶ answer ──▶ OK
 *                (node tls: preferred/required,                   ├──▶ caching_sha2: 0x01 0x03 (fast auth) ──▶ OK
 *                 server offers CLIENT_SSL)                       ├──▶ caching_sha2: 0x01 0x04 (full auth) ──▶ password ──▶ OK
 *                                                                 └──▶ ERR            refused (error kept for the client)
 * </pre>
 *
 * <p>Answers {@code mysql_native_password} from SHA1(password) alone; {@code caching_sha2_password}
 * needs the plain password (the configuration's {@code users:} list). Its full authentication sends
 * the password NUL-terminated over TLS, or — on a clear link — asks for the server's RSA public key
 * (0x02) and sends the password, XORed with the nonce, encrypted with RSA-OAEP, as MySQL 8 clients do.
 */
final class BackendLogin {
    private static final int MAX_PACKET_SIZE = 1 << 30;
    private static final String NATIVE = "mysql_native_password";
    private static final String CACHING_SHA2 = CachingSha2Password.PLUGIN_NAME;
    private static final int SCRAMBLE_LENGTH = 20;
    private static final int OK = 0x00;
    private static final int AUTH_MORE_DATA = 0x01;
    private static final int AUTH_SWITCH = 0xFE;
    private static final int ERR = 0xFF;

    private enum FullAuth { NONE, AWAITING_PUBLIC_KEY, SENT }

    private final LoginRequest request;
    private final String nodeName;
    private final NodeTls tlsMode;
    private final ByteBufAllocator alloc;
    private HandshakeV10 greeting;
    private long capabilities;
    private byte[] seed;
    private String plugin;
    private boolean tls;
    private int greetingSequence;
    private FullAuth fullAuth = FullAuth.NONE;

    BackendLogin(LoginRequest request, String nodeName, NodeTls tlsMode, ByteBufAllocator alloc) {
        this.request = request;
        this.nodeName = nodeName;
        this.tlsMode = tlsMode;
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

    /** Whether the login switched the link to TLS. */
    boolean isTls() {
        return tls;
    }

    private LoginStep onGreeting(ByteBuf payload, int sequenceId) {
        if (payload.getUnsignedByte(payload.readerIndex()) == ERR) {
            return failure(payload);
        }
        greeting = HandshakeV10.decode(payload);
        greetingSequence = sequenceId;
        seed = Arrays.copyOf(greeting.scramble(), SCRAMBLE_LENGTH);
        plugin = greeting.authPluginName().isEmpty() ? NATIVE : greeting.authPluginName();
        capabilities = BackendCapabilities.towardBackend(request.clientCapabilities(), greeting.capabilities(),
                request.database().isPresent());
        boolean offered = Capabilities.has(greeting.capabilities(), Capabilities.CLIENT_SSL);
        if (tlsMode == NodeTls.REQUIRED && !offered) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' does not offer TLS, and the "
                    + "node has tls: required; enable TLS on the server (ssl_cert, ssl_key) or set tls: preferred"));
        }
        if (tlsMode != NodeTls.OFF && offered) {
            tls = true;
            capabilities |= Capabilities.CLIENT_SSL;
            ByteBuf out = alloc.buffer(HandshakeResponse41.FIXED_PART_SIZE);
            new SslRequest(capabilities, maxPacketSize(), request.collation()).encode(out);
            return new LoginStep.StartTls(out, sequenceId + 1);
        }
        return new LoginStep.Reply(response(), sequenceId + 1);
    }

    /** The TLS handshake after the SSLRequest is done: the login proper, encrypted. */
    LoginStep onTlsReady() {
        return new LoginStep.Reply(response(), greetingSequence + 2);
    }

    private long maxPacketSize() {
        return Math.min(request.maxPacketSize(), MAX_PACKET_SIZE);
    }

    private ByteBuf response() {
        Optional<byte[]> answer = answer(plugin, seed);
        if (answer.isEmpty()) {
            // Ask for a plugin we can answer; the server will switch us if it must.
            plugin = NATIVE;
            answer = Optional.of(new byte[0]);
        }
        HandshakeResponse41 response = new HandshakeResponse41(capabilities, maxPacketSize(), request.collation(),
                request.user(), answer.get(), request.database(), Optional.of(plugin), request.connectAttributes());
        ByteBuf out = alloc.buffer();
        response.encode(out);
        return out;
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
                fullAuth = FullAuth.NONE;
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
        if (!CACHING_SHA2.equals(plugin) || payload.readableBytes() < 2) {
            return new LoginStep.Wait();
        }
        if (fullAuth == FullAuth.AWAITING_PUBLIC_KEY) {
            byte[] pem = new byte[payload.readableBytes() - 1];
            payload.getBytes(payload.readerIndex() + 1, pem);
            return sendEncrypted(pem, sequenceId);
        }
        int status = payload.getUnsignedByte(payload.readerIndex() + 1);
        if (status != CachingSha2Password.PERFORM_FULL_AUTHENTICATION) {
            return new LoginStep.Wait(); // fast auth success: the OK follows
        }
        if (!(request.credential() instanceof Credential.PlainPassword plain)) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' requires full "
                    + "caching_sha2_password authentication for '" + request.user() + "', which needs the account's "
                    + "password: add the user to 'users:' in the configuration"));
        }
        if (fullAuth != FullAuth.NONE) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' asked twice for full "
                    + "authentication of '" + request.user() + "'"));
        }
        if (tls) {
            fullAuth = FullAuth.SENT;
            byte[] password = plain.password();
            return new LoginStep.Reply(alloc.buffer(password.length + 1).writeBytes(password).writeByte(0),
                    sequenceId + 1);
        }
        fullAuth = FullAuth.AWAITING_PUBLIC_KEY;
        return new LoginStep.Reply(alloc.buffer(1).writeByte(CachingSha2Password.REQUEST_PUBLIC_KEY), sequenceId + 1);
    }

    private LoginStep sendEncrypted(byte[] pem, int sequenceId) {
        fullAuth = FullAuth.SENT;
        byte[] password = ((Credential.PlainPassword) request.credential()).password();
        try {
            byte[] encrypted = RsaPassword.encrypt(password, seed, RsaPassword.publicKey(pem));
            return new LoginStep.Reply(alloc.buffer(encrypted.length).writeBytes(encrypted), sequenceId + 1);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return new LoginStep.Failure(new BackendException("backend '" + nodeName + "' sent an RSA public key "
                    + "Sluice cannot use for caching_sha2_password (" + e.getMessage() + "); set tls: required on "
                    + "the node so that the password goes over TLS instead", e));
        } finally {
            Arrays.fill(password, (byte) 0);
        }
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
