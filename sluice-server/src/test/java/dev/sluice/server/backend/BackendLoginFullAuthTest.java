package dev.sluice.server.backend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.server.auth.Credential;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.HostPort;
import dev.sluice.server.config.NodeTls;
import dev.sluice.server.net.Transport;
import dev.sluice.server.tls.BackendTlsContexts;
import dev.sluice.server.tls.SelfSignedCertificate;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * caching_sha2_password full authentication toward a backend (MySQL 8), against a scripted server
 * socket: the password over TLS after 0x04, or RSA-OAEP encrypted with the server's public key on
 * a clear link; and the node's TLS modes.
 */
class BackendLoginFullAuthTest {
    private static final byte[] PASSWORD = "s3cr3t-pässword".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NONCE = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
    private static final long SERVER_CAPABILITIES = Capabilities.CLIENT_MYSQL | Capabilities.CLIENT_PROTOCOL_41
            | Capabilities.CLIENT_SECURE_CONNECTION | Capabilities.CLIENT_PLUGIN_AUTH
            | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | Capabilities.CLIENT_TRANSACTIONS
            | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_CONNECT_WITH_DB | Capabilities.CLIENT_CONNECT_ATTRS
            | Capabilities.CLIENT_DEPRECATE_EOF;
    private static final long CLIENT_CAPABILITIES = Capabilities.CLIENT_PROTOCOL_41
            | Capabilities.CLIENT_SECURE_CONNECTION | Capabilities.CLIENT_PLUGIN_AUTH
            | Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | Capabilities.CLIENT_TRANSACTIONS
            | Capabilities.CLIENT_MULTI_RESULTS | Capabilities.CLIENT_LONG_PASSWORD | Capabilities.CLIENT_DEPRECATE_EOF;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    static Path keys;
    private static EventLoopGroup loop;
    private static SelfSignedCertificate serverCertificate;
    private static SSLContext serverTls;
    private static KeyPair rsa;

    @BeforeAll
    static void setUp() throws Exception {
        loop = Transport.best().newGroup(1, "test-backend");
        serverCertificate = SelfSignedCertificate.loadOrCreate(keys.resolve("server"));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(serverCertificate.store(), SelfSignedCertificate.STORE_PASSWORD);
        serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        rsa = g.generateKeyPair();
    }

    @AfterAll
    static void tearDown() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static HandshakeV10 greeting(boolean offerTls) {
        long caps = SERVER_CAPABILITIES | (offerTls ? Capabilities.CLIENT_SSL : 0);
        return new HandshakeV10("8.0.36", 7, NONCE, caps, 45, 2, CachingSha2Password.PLUGIN_NAME);
    }

    private static LoginRequest login(Credential credential) {
        return new LoginRequest("app", credential, Optional.empty(), CLIENT_CAPABILITIES, 45, 1 << 24, Map.of());
    }

    private static BackendTls unverified(NodeTls mode) throws Exception {
        return new BackendTls(mode, Optional.of(SslContextBuilder.forClient()
                .trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null).build()), false);
    }

    private static Future<BackendConnection> connect(FakeMysqlServer server, BackendTls tls, Credential credential) {
        BackendConnector connector = new TcpBackendConnector(Transport.best(), TIMEOUT, TIMEOUT, node -> tls);
        return connector.connect(loop.next(), "mysql8", 1, new HostPort("127.0.0.1", server.port()),
                login(credential)).awaitUninterruptibly();
    }

    private static HandshakeResponse41 decode(byte[] payload) {
        return HandshakeResponse41.decode(Unpooled.wrappedBuffer(payload));
    }

    private static byte[] withNul(byte[] password) {
        return Arrays.copyOf(password, password.length + 1);
    }

    @Test
    void overTlsTheFullAuthenticationSendsThePasswordItself() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(true));
            byte[] sslRequest = s.receive(1);
            assertThat(sslRequest).hasSize(HandshakeResponse41.FIXED_PART_SIZE);
            s.startTls(serverTls);
            HandshakeResponse41 response = decode(s.receive(2));
            assertThat(response.username()).isEqualTo("app");
            assertThat(Capabilities.has(response.capabilities(), Capabilities.CLIENT_SSL)).isTrue();
            assertThat(response.authPluginName()).contains(CachingSha2Password.PLUGIN_NAME);
            assertThat(response.authResponse()).isEqualTo(CachingSha2Password.scramble(PASSWORD, NONCE));
            s.send(3, new byte[] {0x01, CachingSha2Password.PERFORM_FULL_AUTHENTICATION});
            assertThat(s.receive(4)).isEqualTo(withNul(PASSWORD));
            s.send(5, FakeMysqlServer.ok());
        })) {
            Future<BackendConnection> f = connect(server, unverified(NodeTls.PREFERRED),
                    new Credential.PlainPassword(PASSWORD));
            server.awaitScript();
            assertThat(f.cause()).isNull();
            // The script read the password after its own TLS handshake, so it travelled encrypted;
            // the pipeline itself cannot be inspected here, as the fake server has hung up by now.
            f.getNow().close();
        }
    }

    @Test
    void onAClearLinkThePasswordGoesRsaOaepEncryptedWithTheServersKey() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(false));
            HandshakeResponse41 response = decode(s.receive(1));
            assertThat(Capabilities.has(response.capabilities(), Capabilities.CLIENT_SSL)).isFalse();
            assertThat(response.authResponse()).isEqualTo(CachingSha2Password.scramble(PASSWORD, NONCE));
            s.send(2, new byte[] {0x01, CachingSha2Password.PERFORM_FULL_AUTHENTICATION});
            assertThat(s.receive(3)).containsExactly(CachingSha2Password.REQUEST_PUBLIC_KEY);
            s.send(4, concat(new byte[] {0x01}, pem(rsa).getBytes(StandardCharsets.US_ASCII)));
            byte[] encrypted = s.receive(5);
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.DECRYPT_MODE, rsa.getPrivate());
            byte[] xored = cipher.doFinal(encrypted);
            for (int i = 0; i < xored.length; i++) {
                xored[i] ^= NONCE[i % NONCE.length];
            }
            assertThat(xored).isEqualTo(withNul(PASSWORD));
            s.send(6, FakeMysqlServer.ok());
        })) {
            Future<BackendConnection> f = connect(server, unverified(NodeTls.PREFERRED),
                    new Credential.PlainPassword(PASSWORD));
            server.awaitScript();
            assertThat(f.cause()).isNull();
            f.getNow().close();
        }
    }

    @Test
    void fastAuthSuccessNeedsNothingMore() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(false));
            s.receive(1);
            s.send(2, new byte[] {0x01, CachingSha2Password.FAST_AUTH_SUCCESS});
            s.send(3, FakeMysqlServer.ok());
        })) {
            Future<BackendConnection> f = connect(server, BackendTls.OFF, new Credential.PlainPassword(PASSWORD));
            server.awaitScript();
            assertThat(f.cause()).isNull();
            f.getNow().close();
        }
    }

    @Test
    void withoutThePasswordFullAuthenticationFailsWithAnActionableMessage() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(false));
            s.receive(1);
            // A native-password client is switched to caching_sha2, which a SHA1 hash cannot answer.
            s.send(2, concat(new byte[] {(byte) 0xFE}, "caching_sha2_password\0".getBytes(StandardCharsets.US_ASCII),
                    withNul(NONCE)));
            assertThat(s.clientClosed()).isTrue();
        })) {
            Future<BackendConnection> f = connect(server, BackendTls.OFF, new Credential.NativeHash(new byte[20]));
            server.awaitScript();
            assertThat(f.cause()).hasMessageContaining("add the user to 'users:'");
        }
    }

    @Test
    void tlsRequiredRefusesANodeThatDoesNotOfferIt() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(false));
            assertThat(s.clientClosed()).isTrue();
        })) {
            Future<BackendConnection> f = connect(server, unverified(NodeTls.REQUIRED),
                    new Credential.PlainPassword(PASSWORD));
            server.awaitScript();
            assertThat(f.cause()).hasMessageContaining("does not offer TLS").hasMessageContaining("tls: required");
        }
    }

    @Test
    void tlsOffLogsInInClearEvenWhenTheServerOffersTls() throws Exception {
        try (FakeMysqlServer server = new FakeMysqlServer(s -> {
            s.sendGreeting(greeting(true));
            HandshakeResponse41 response = decode(s.receive(1));
            assertThat(Capabilities.has(response.capabilities(), Capabilities.CLIENT_SSL)).isFalse();
            s.send(2, new byte[] {0x01, CachingSha2Password.FAST_AUTH_SUCCESS});
            s.send(3, FakeMysqlServer.ok());
        })) {
            Future<BackendConnection> f = connect(server, BackendTls.OFF, new Credential.PlainPassword(PASSWORD));
            server.awaitScript();
            assertThat(f.cause()).isNull();
            f.getNow().close();
        }
    }

    @Test
    void aVerifiedNodeMustPresentACertificateFromItsCa() throws Exception {
        // The node's certificate is self-signed, so it is its own CA.
        String trusted = serverCertificate.certificatePem().toString();
        String other = SelfSignedCertificate.loadOrCreate(keys.resolve("other")).certificatePem().toString();
        for (String ca : new String[] {trusted, other}) {
            var config = ConfigLoader.parse("""
                    nodes:
                      - {name: mysql8, address: 127.0.0.1:1, role: primary, tls: required, tls-ca: %s}
                      - {name: replica, address: 127.0.0.1:2}
                    endpoints: [{name: rw, listen: 127.0.0.1:0}]
                    """.formatted(ca));
            BackendTls tls = new BackendTlsContexts(() -> config, Optional.empty()).apply("mysql8");
            assertThat(tls.verified()).isTrue();
            boolean good = ca.equals(trusted);
            try (FakeMysqlServer server = new FakeMysqlServer(s -> {
                s.sendGreeting(greeting(true));
                s.receive(1);
                try {
                    s.startTls(serverTls);
                } catch (java.io.IOException e) {
                    if (good) {
                        throw e;
                    }
                    return;
                }
                decode(s.receive(2));
                s.send(3, new byte[] {0x01, CachingSha2Password.FAST_AUTH_SUCCESS});
                s.send(4, FakeMysqlServer.ok());
            })) {
                Future<BackendConnection> f = connect(server, tls, new Credential.PlainPassword(PASSWORD));
                server.awaitScript();
                if (good) {
                    assertThat(f.cause()).isNull();
                    f.getNow().close();
                } else {
                    assertThat(f.cause()).hasMessageContaining("TLS handshake with backend 'mysql8'")
                            .hasMessageContaining("tls-ca");
                }
            }
        }
    }

    private static String pem(KeyPair pair) {
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(pair.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
