package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.Command;
import dev.sluice.protocol.auth.NativePassword;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** COM_CHANGE_USER: checked by Sluice, then a backend logs in as the new user before the session changes. */
class ChangeUserTest {
    private static final int AUTH_SWITCH_REQUEST = 0xFE;
    private static final int UTF8MB4_GENERAL_CI = 45;
    private final SessionHarness h = SessionHarness.readWrite();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void aClientAnsweringWithAnotherPluginIsAskedToSwitchAndItsAnswerIsTakenEvenThoughTheCommandIsRunning() {
        h.send(Command.COM_CHANGE_USER, changeUser(SessionHarness.OTHER_USER, new byte[] {1, 2, 3}, "mysql_old_password"));
        byte[] request = h.packet();
        assertThat(request[0] & 0xFF).as("an AuthSwitchRequest").isEqualTo(AUTH_SWITCH_REQUEST);
        assertThat(new String(request, 1, "mysql_native_password".length(), StandardCharsets.US_ASCII))
                .isEqualTo("mysql_native_password");
        h.sendFollowUp(3, NativePassword.scramble(SessionHarness.OTHER_PASSWORD.getBytes(StandardCharsets.UTF_8),
                SessionHarness.SCRAMBLE));
        h.ok();
        assertThat(h.backend("primary").login().user()).isEqualTo(SessionHarness.OTHER_USER);
    }

    @Test
    void aWrongPasswordIsRefusedAndTheSessionGoesOnAsTheOldUser() {
        h.send(Command.COM_CHANGE_USER, changeUser(SessionHarness.OTHER_USER, new byte[20], "mysql_native_password"));
        assertThat(h.error()).startsWith("1045 ").contains("Access denied for user 'other'");
        h.query("SELECT 1");
        var ro1 = h.backend("ro1");
        assertThat(ro1.login().user()).isEqualTo("app");
        assertThat(ro1.takeClientCommand()).isEqualTo("SELECT 1");
    }

    private static byte[] changeUser(String user, byte[] auth, String plugin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(user.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.write(auth.length);
        out.writeBytes(auth);
        out.write(0);
        out.write(UTF8MB4_GENERAL_CI);
        out.write(0);
        out.writeBytes(plugin.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        return out.toByteArray();
    }
}
