package dev.sluice.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.protocol.Golden;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Vectors from a real MariaDB 10.11: the account {@code sluice} / {@code s3cret-pw}, whose
 * stored hash the server printed as {@code *36CB…6145}, logged in with the answers recorded in
 * the golden files (one computed by this class, one by the {@code mariadb} CLI's libmariadb).
 */
class NativePasswordTest {
    static final byte[] PASSWORD = "s3cret-pw".getBytes(StandardCharsets.UTF_8);
    static final String STORED = "*36CB988D2F656A3DC7A46D099223E8AC1B3B6145";

    @Test
    void stage2MatchesWhatTheServerStores() {
        assertThat(NativePassword.formatStage2(NativePassword.stage2(PASSWORD))).isEqualTo(STORED);
        assertThat(NativePassword.parseStage2(STORED)).isEqualTo(NativePassword.stage2(PASSWORD));
        assertThat(NativePassword.parseStage2(STORED.toLowerCase())).isEqualTo(NativePassword.stage2(PASSWORD));
        assertThat(NativePassword.stage2(NativePassword.stage1(PASSWORD)).length).isEqualTo(20);
    }

    @Test
    void answersTheServerAcceptedAreReproduced() {
        for (String file : List.of("login-native.hex", "cli-session.hex")) {
            byte[] seed = HandshakeV10.decode(Unpooled.wrappedBuffer(Golden.fromServer(file).get(0))).scramble();
            HandshakeResponse41 login = HandshakeResponse41.decode(Unpooled.wrappedBuffer(Golden.fromClient(file).get(0)));
            assertThat(NativePassword.scramble(PASSWORD, seed)).as(file).isEqualTo(login.authResponse());
        }
    }

    @Test
    void stage1IsRecoveredFromARealClientAndAnswersAnotherSeed() {
        byte[] seed = HandshakeV10.decode(Unpooled.wrappedBuffer(Golden.fromServer("cli-session.hex").get(0))).scramble();
        byte[] answer = HandshakeResponse41.decode(Unpooled.wrappedBuffer(Golden.fromClient("cli-session.hex").get(0)))
                .authResponse();
        Optional<byte[]> stage1 = NativePassword.recoverStage1(seed, answer, NativePassword.parseStage2(STORED));
        assertThat(stage1).hasValue(NativePassword.stage1(PASSWORD));
        // The backend's seed, from another capture: the proxy's answer equals the one the server accepted.
        byte[] backendSeed = HandshakeV10.decode(Unpooled.wrappedBuffer(Golden.fromServer("login-native.hex").get(0)))
                .scramble();
        byte[] accepted = HandshakeResponse41.decode(Unpooled.wrappedBuffer(Golden.fromClient("login-native.hex").get(0)))
                .authResponse();
        assertThat(NativePassword.scrambleWithStage1(stage1.orElseThrow(), backendSeed)).isEqualTo(accepted);
    }

    @Test
    void authSwitchAnswerIsComputedFromTheNewSeed() {
        List<byte[]> server = Golden.fromServer("auth-switch.hex");
        AuthSwitchRequest request = AuthSwitchRequest.decode(Unpooled.wrappedBuffer(server.get(1)));
        byte[] answer = Golden.fromClient("auth-switch.hex").get(1);
        assertThat(NativePassword.scramble(PASSWORD, request.seed())).isEqualTo(answer);
        assertThat(NativePassword.verify(request.seed(), answer, NativePassword.stage2(PASSWORD))).isTrue();
    }

    @Test
    void wrongPasswordIsNotRecovered() {
        byte[] seed = HandshakeV10.decode(Unpooled.wrappedBuffer(Golden.fromServer("err-access-denied.hex").get(0)))
                .scramble();
        byte[] answer = HandshakeResponse41.decode(Unpooled.wrappedBuffer(Golden.fromClient("err-access-denied.hex")
                .get(0))).authResponse();
        assertThat(NativePassword.recoverStage1(seed, answer, NativePassword.parseStage2(STORED))).isEmpty();
        assertThat(NativePassword.verify(seed, answer, NativePassword.parseStage2(STORED))).isFalse();
        assertThat(NativePassword.recoverStage1(seed, new byte[19], NativePassword.parseStage2(STORED))).isEmpty();
    }

    @Test
    void emptyPasswordIsAnEmptyAnswer() {
        byte[] seed = new byte[20];
        assertThat(NativePassword.scramble(new byte[0], seed)).isEmpty();
        assertThat(NativePassword.stage2(new byte[0])).isEmpty();
        assertThat(NativePassword.parseStage2("")).isEmpty();
        assertThat(NativePassword.formatStage2(new byte[0])).isEmpty();
        assertThat(NativePassword.recoverStage1(seed, new byte[0], new byte[0])).hasValueSatisfying(s -> assertThat(s).isEmpty());
        assertThat(NativePassword.scrambleWithStage1(new byte[0], seed)).isEmpty();
        // An empty answer for an account with a password, or the reverse, is wrong.
        assertThat(NativePassword.recoverStage1(seed, new byte[0], NativePassword.stage2(PASSWORD))).isEmpty();
        assertThat(NativePassword.recoverStage1(seed, NativePassword.scramble(PASSWORD, seed), new byte[0])).isEmpty();
    }

    @Test
    void otherHashFormatsAreRejected() {
        assertThatThrownBy(() -> NativePassword.parseStage2("36CB988D2F656A3DC7A46D099223E8AC1B3B6145"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NativePassword.parseStage2("*ZZCB988D2F656A3DC7A46D099223E8AC1B3B6145"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NativePassword.parseStage2("$A$005$abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NativePassword.scrambleWithStage1(new byte[3], new byte[20]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sha1OfKnownInput() {
        // FIPS 180 test vector, guarding the digest plumbing itself.
        assertThat(HexFormat.of().formatHex(NativePassword.stage1("abc".getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}
