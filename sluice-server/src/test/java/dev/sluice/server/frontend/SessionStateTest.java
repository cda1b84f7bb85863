package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.packet.Packets;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SessionCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One model of a session's state: the replay a fresh connection runs and the tag a pooled one carries. */
class SessionStateTest {
    private static final ClientCharset UTF8 = ClientCharset.UTF8MB4;
    private static final ClientCharset KOI8R = ClientCharset.named("koi8r").orElseThrow();
    private static final int MULTI_STATEMENTS_ON = 0;

    @Test
    void aFreshConnectionReplaysTheSessionCommandsInTheOrderTheClientSentThem() {
        SessionState state = state(UTF8, UTF8, SessionState.NO_OPTION, true, set("SET sql_mode = ''", UTF8),
                SessionCommand.useSchema("app", UTF8), set("SET time_zone = '+00:00'", UTF8));
        assertThat(replayed(state, false)).containsExactly("SET sql_mode = ''", "USE `app`",
                "SET time_zone = '+00:00'");
    }

    @Test
    void aCommandWithNonAsciiTextWrittenInAnotherCharsetIsPrecededByThatCharsetAndTheReplayEndsInTheClientsOwn() {
        SessionCommand names = new SessionCommand("SET NAMES koi8r", Set.of("names"), false, true, UTF8,
                Optional.of(KOI8R));
        SessionState state = state(UTF8, UTF8, SessionState.NO_OPTION, true, names,
                SessionCommand.useSchema("база", KOI8R), set("SET NAMES utf8mb4", KOI8R, UTF8));
        assertThat(replayed(state, false)).containsExactly("SET NAMES koi8r", "USE `база`", "SET NAMES utf8mb4");
        SessionState stillKoi8r = state(UTF8, KOI8R, SessionState.NO_OPTION, true,
                SessionCommand.useSchema("база", KOI8R));
        assertThat(replayed(stillKoi8r, false)).containsExactly("SET character_set_client = koi8r", "USE `база`");
    }

    @Test
    void aReplicaStaysInAutocommitWhateverTheClientSetAndThePrimaryDoesNot() {
        SessionState state = state(UTF8, UTF8, SessionState.NO_OPTION, false, set("SET autocommit = 0", UTF8));
        assertThat(replayed(state, true)).containsExactly("SET autocommit = 0", SessionState.AUTOCOMMIT_ON);
        assertThat(replayed(state, false)).containsExactly("SET autocommit = 0");
    }

    @Test
    void theMultiStatementOptionIsReplayedFirstAsACommandOfItsOwn() {
        SessionState state = state(UTF8, UTF8, MULTI_STATEMENTS_ON, true, set("SET @a = 1", UTF8));
        List<ReplayCommand> replay = state.replay(UnpooledByteBufAllocator.DEFAULT, false);
        ByteBuf option = replay.get(0).packet();
        assertThat((int) option.getUnsignedByte(Packets.HEADER_SIZE)).isEqualTo(dev.sluice.protocol.Command.COM_SET_OPTION);
        assertThat(option.getUnsignedShortLE(Packets.HEADER_SIZE + 1)).isEqualTo(MULTI_STATEMENTS_ON);
        assertThat(text(replay.get(1).packet(), UTF8)).isEqualTo("SET @a = 1");
        replay.forEach(c -> c.packet().release());
    }

    @Test
    void twoSessionsInTheSameStateHaveOneTagAndAnyDifferenceMakesAnother() {
        SessionState a = state(UTF8, UTF8, SessionState.NO_OPTION, true, set("SET sql_mode = ''", UTF8));
        SessionState same = state(UTF8, UTF8, SessionState.NO_OPTION, true, set("SET sql_mode = ''", UTF8));
        assertThat(a.tag()).isEqualTo(same.tag());
        assertThat(a.tag()).isNotEqualTo(state(UTF8, UTF8, MULTI_STATEMENTS_ON, true,
                set("SET sql_mode = ''", UTF8)).tag());
        assertThat(a.tag()).isNotEqualTo(state(UTF8, UTF8, SessionState.NO_OPTION, true,
                set("SET sql_mode = 'ANSI'", UTF8)).tag());
        assertThat(a.tag()).as("the same text written in another charset is another command")
                .isNotEqualTo(state(UTF8, UTF8, SessionState.NO_OPTION, true, set("SET sql_mode = ''", KOI8R)).tag());
    }

    @Test
    void aConnectionJustResetOnASchemaHasTheTagOfASessionWithNothingButThatSchema() {
        SessionState onlySchema = new SessionState(Optional.of("app"), UTF8, UTF8, SessionState.NO_OPTION, List.of(),
                true);
        assertThat(SessionState.freshTag(Optional.of("app"))).isEqualTo(onlySchema.tag());
        assertThat(SessionState.freshTag(Optional.empty())).isNotEqualTo(onlySchema.tag());
    }

    private static SessionCommand set(String sql, ClientCharset writtenIn) {
        return new SessionCommand(sql, Set.of(sql.split(" ")[1]), false, true, writtenIn);
    }

    private static SessionCommand set(String sql, ClientCharset writtenIn, ClientCharset makesClientCharset) {
        return new SessionCommand(sql, Set.of("names"), false, true, writtenIn, Optional.of(makesClientCharset));
    }

    private static SessionState state(ClientCharset login, ClientCharset client, int option, boolean autocommit,
            SessionCommand... history) {
        return new SessionState(Optional.empty(), login, client, option, List.of(history), autocommit);
    }

    /** The replay as text, each command decoded in the character set in force when it is sent. */
    private static List<String> replayed(SessionState state, boolean toReplica) {
        List<ReplayCommand> replay = state.replay(UnpooledByteBufAllocator.DEFAULT, toReplica);
        ClientCharset[] inForce = {state.loginCharset()};
        List<String> texts = replay.stream().map(c -> {
            String sql = text(c.packet(), inForce[0]);
            if (sql.startsWith("SET character_set_client = ")) {
                inForce[0] = ClientCharset.named(sql.substring("SET character_set_client = ".length())).orElseThrow();
            } else if (sql.startsWith("SET NAMES ")) {
                inForce[0] = ClientCharset.named(sql.substring("SET NAMES ".length())).orElseThrow();
            }
            return sql;
        }).toList();
        replay.forEach(c -> c.packet().release());
        return texts;
    }

    private static String text(ByteBuf packet, ClientCharset charset) {
        int length = Packets.payloadLength(packet, packet.readerIndex()) - 1;
        byte[] sql = new byte[length];
        packet.getBytes(packet.readerIndex() + Packets.HEADER_SIZE + 1, sql);
        return new String(sql, charset.java());
    }
}
