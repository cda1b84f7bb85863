package dev.sluice.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * MariaDB 10.11 has no server side for caching_sha2_password, so there is no golden capture;
 * the vectors are the ones go-sql-driver/mysql checks its implementation with
 * ({@code auth_test.go}, TestScrambleSHA256Pass), an independent client MySQL 8 accepts.
 */
class CachingSha2PasswordTest {
    static final byte[] NONCE = {10, 47, 74, 111, 75, 73, 34, 48, 88, 76, 114, 74, 37, 13, 3, 80, 82, 2, 23, 21};

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void scrambleMatchesIndependentVectors() {
        assertThat(HexFormat.of().formatHex(CachingSha2Password.scramble(utf8("secret"), NONCE)))
                .isEqualTo("f490e76f66d9d86665ce54d98c78d0acfe2fb0b08b423da807144873d30b312c");
        assertThat(HexFormat.of().formatHex(CachingSha2Password.scramble(utf8("secret2"), NONCE)))
                .isEqualTo("abc3934a012cf342e876071c8ee202de51785b430258a7a0138bc79c4d800bc6");
    }

    @Test
    void verifyAcceptsTheRightPasswordOnly() {
        byte[] answer = CachingSha2Password.scramble(utf8("secret"), NONCE);
        assertThat(CachingSha2Password.verify(NONCE, answer, CachingSha2Password.doubleHash(utf8("secret")))).isTrue();
        assertThat(CachingSha2Password.verifyPassword(NONCE, answer, utf8("secret"))).isTrue();
        assertThat(CachingSha2Password.verifyPassword(NONCE, answer, utf8("secret2"))).isFalse();
        byte[] otherNonce = NONCE.clone();
        otherNonce[0]++;
        assertThat(CachingSha2Password.verifyPassword(otherNonce, answer, utf8("secret"))).isFalse();
        assertThat(CachingSha2Password.verifyPassword(NONCE, new byte[31], utf8("secret"))).isFalse();
    }

    @Test
    void emptyPasswordIsAnEmptyAnswer() {
        assertThat(CachingSha2Password.scramble(new byte[0], NONCE)).isEmpty();
        assertThat(CachingSha2Password.verifyPassword(NONCE, new byte[0], new byte[0])).isTrue();
        assertThat(CachingSha2Password.verifyPassword(NONCE, new byte[0], utf8("secret"))).isFalse();
        assertThat(CachingSha2Password.verifyPassword(NONCE, CachingSha2Password.scramble(utf8("x"), NONCE),
                new byte[0])).isFalse();
    }

    @Test
    void protocolConstants() {
        assertThat(CachingSha2Password.REQUEST_PUBLIC_KEY).isEqualTo(2);
        assertThat(CachingSha2Password.FAST_AUTH_SUCCESS).isEqualTo(3);
        assertThat(CachingSha2Password.PERFORM_FULL_AUTHENTICATION).isEqualTo(4);
        assertThat(CachingSha2Password.PLUGIN_NAME).isEqualTo("caching_sha2_password");
    }
}
