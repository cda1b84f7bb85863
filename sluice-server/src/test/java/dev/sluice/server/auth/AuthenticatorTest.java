package dev.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.auth.CachingSha2Password;
import dev.sluice.protocol.auth.NativePassword;
import dev.sluice.server.backend.QueryResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** REQUIRE SSL accounts and caching_sha2_password full authentication, without I/O. */
class AuthenticatorTest {
    private static final byte[] SCRAMBLE = "abcdefghijklmnopqrst".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = "127.0.0.1";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Authenticator authenticator(Map<String, byte[]> configured, Set<String> fullAuth) {
        QueryResult accounts = new QueryResult(List.of("user", "host", "authentication_string", "plugin", "ssl_type"),
                List.of(List.of("plain", "%", "*" + hex(NativePassword.stage2(bytes("pw"))), "mysql_native_password", ""),
                        List.of("secure", "%", "*" + hex(NativePassword.stage2(bytes("pw"))), "mysql_native_password",
                                "ANY"),
                        List.of("cfg_secure", "%", "", "caching_sha2_password", "ANY")), 0, java.util.Optional.empty());
        AccountStore store = new AccountStore(() -> CompletableFuture.completedFuture(accounts), configured,
                Duration.ofSeconds(1), System::nanoTime);
        store.load().join();
        return new Authenticator(store, fullAuth);
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().withUpperCase().formatHex(b);
    }

    @Test
    void anAccountThatRequiresSslIsRefusedWithoutTlsAndAcceptedWithIt() {
        Authenticator a = authenticator(Map.of(), Set.of());
        byte[] answer = NativePassword.scramble(bytes("pw"), SCRAMBLE);
        AuthOutcome clear = a.check("secure", HOST, Authenticator.NATIVE, SCRAMBLE, answer, false, true);
        assertThat(clear).isInstanceOfSatisfying(AuthOutcome.Denied.class,
                d -> assertThat(d.reason()).isEqualTo(AuthOutcome.Reason.TLS_REQUIRED));
        assertThat(a.check("secure", HOST, Authenticator.NATIVE, SCRAMBLE, answer, true, true))
                .isInstanceOf(AuthOutcome.Accepted.class);
        assertThat(a.check("plain", HOST, Authenticator.NATIVE, SCRAMBLE, answer, false, true))
                .isInstanceOf(AuthOutcome.Accepted.class);
        // A wrong password stays a wrong password, with or without TLS.
        byte[] wrong = NativePassword.scramble(bytes("nope"), SCRAMBLE);
        assertThat(a.check("secure", HOST, Authenticator.NATIVE, SCRAMBLE, wrong, false, true))
                .isInstanceOfSatisfying(AuthOutcome.Denied.class,
                        d -> assertThat(d.reason()).isEqualTo(AuthOutcome.Reason.WRONG_PASSWORD));
    }

    @Test
    void aConfiguredUserWhoseAccountRequiresSslNeedsTlsToo() {
        Authenticator a = authenticator(Map.of("cfg_secure", bytes("s3")), Set.of());
        byte[] answer = CachingSha2Password.scramble(bytes("s3"), SCRAMBLE);
        assertThat(a.check("cfg_secure", HOST, Authenticator.CACHING_SHA2, SCRAMBLE, answer, false, true))
                .isInstanceOf(AuthOutcome.Denied.class);
        assertThat(a.check("cfg_secure", HOST, Authenticator.CACHING_SHA2, SCRAMBLE, answer, true, true))
                .isInstanceOf(AuthOutcome.Accepted.class);
    }

    @Test
    void fullAuthenticationIsAskedOnlyOverTlsAndChecksTheClearPassword() {
        Authenticator a = authenticator(Map.of("sha2", bytes("s3cret")), Set.of("sha2"));
        byte[] fast = CachingSha2Password.scramble(bytes("s3cret"), SCRAMBLE);
        // Without TLS: the fast path, as before.
        assertThat(a.check("sha2", HOST, Authenticator.CACHING_SHA2, SCRAMBLE, fast, false, true))
                .isInstanceOf(AuthOutcome.Accepted.class);
        // Over TLS: full authentication; a client that started with another plugin is switched first.
        assertThat(a.check("sha2", HOST, Authenticator.CACHING_SHA2, SCRAMBLE, fast, true, true))
                .isInstanceOf(AuthOutcome.FullAuthentication.class);
        assertThat(a.check("sha2", HOST, Authenticator.NATIVE, SCRAMBLE, new byte[20], true, true))
                .isEqualTo(new AuthOutcome.SwitchPlugin(Authenticator.CACHING_SHA2));
        // Where the caller cannot run it (COM_CHANGE_USER), the fast path.
        assertThat(a.check("sha2", HOST, Authenticator.CACHING_SHA2, SCRAMBLE, fast, true, false))
                .isInstanceOf(AuthOutcome.Accepted.class);
        assertThat(a.checkClearPassword("sha2", HOST, bytes("s3cret"), true))
                .isInstanceOfSatisfying(AuthOutcome.Accepted.class, ok -> assertThat(ok.credential())
                        .isInstanceOfSatisfying(Credential.PlainPassword.class,
                                p -> assertThat(p.password()).isEqualTo(bytes("s3cret"))));
        assertThat(a.checkClearPassword("sha2", HOST, bytes("s3creT"), true)).isInstanceOf(AuthOutcome.Denied.class);
        assertThat(a.checkClearPassword("sha2", HOST, bytes("s3cret"), false)).isInstanceOf(AuthOutcome.Denied.class);
        assertThat(a.checkClearPassword("nobody", HOST, bytes("s3cret"), true)).isInstanceOf(AuthOutcome.Denied.class);
    }
}
