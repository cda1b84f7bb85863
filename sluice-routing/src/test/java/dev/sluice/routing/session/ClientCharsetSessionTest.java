package dev.sluice.routing.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.protocol.ServerStatus;
import dev.sluice.routing.Fixtures;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.RouteReason;
import dev.sluice.routing.sql.ClientCharset;
import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.routing.sql.SqlClassifier;
import dev.sluice.routing.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Names are read in the character set the client writes in, as the server reads them: a temporary
 * table with a Cyrillic name created under KOI8-R is the session's own when a later statement
 * names it, and a session command keeps the character set it was written in, for its replay.
 */
class ClientCharsetSessionTest {
    private static final ClientCharset KOI8R = ClientCharset.named("koi8r").orElseThrow();
    private static final int KOI8R_GENERAL_CI = 7;
    private static final RouteDecision PRIMARY = RouteDecision.primary(RouteReason.WRITE);
    private static final RouteDecision ALL = new RouteDecision.ToAllBackends(RouteReason.SESSION_COMMAND);
    private static final int IDLE = ServerStatus.AUTOCOMMIT;

    private static Statement classify(String sql, ClientCharset charset) {
        byte[] bytes = charset.encode(sql);
        return SqlClassifier.classify(bytes, 0, bytes.length, charset);
    }

    private static void ok(RoutingSession session, String sql, RouteDecision decision) {
        session.onStatementSent(classify(sql, session.clientCharset()), decision);
        session.onResponse(IDLE);
    }

    @Test
    void theHandshakesCollationNamesTheCharacterSet() {
        assertThat(ClientCharset.ofCollation(KOI8R_GENERAL_CI)).isEqualTo(KOI8R);
        assertThat(ClientCharset.ofCollation(45).name()).isEqualTo("utf8mb4");
        assertThat(ClientCharset.ofCollation(255).name()).as("MySQL 8's default").isEqualTo("utf8mb4");
        assertThat(ClientCharset.ofCollation(8).name()).isEqualTo("latin1");
        assertThat(ClientCharset.named("UTF8").orElseThrow().name()).isEqualTo("utf8mb3");
        assertThat(ClientCharset.named("klingon")).isEmpty();
    }

    @Test
    void aCyrillicTemporaryTableCreatedUnderKoi8rIsTheSessionsOwn() {
        RoutingSession session = RoutingSession.open(Fixtures.readWrite(), KOI8R);
        ok(session, "CREATE TEMPORARY TABLE `МояТаблица` (`поле1` varchar(255) NOT NULL)", PRIMARY);
        assertThat(session.temporaryTables()).extracting(t -> t.name()).containsExactly("МояТаблица");
        assertThat(session.touchesTemporaryTable(classify("SELECT * FROM `МояТаблица`", KOI8R))).isTrue();
        assertThat(session.touchesTemporaryTable(classify("SELECT * FROM МояТаблица", KOI8R))).isTrue();
        assertThat(session.touchesTemporaryTable(classify("SELECT * FROM `Другая`", KOI8R))).isFalse();
    }

    @Test
    void aChangeOfCharacterSetReadsTheSameTableInTheNewOne() {
        RoutingSession session = RoutingSession.open(Fixtures.readWrite(), KOI8R);
        ok(session, "CREATE TEMPORARY TABLE `Таблица` (a INT)", PRIMARY);
        ok(session, "SET NAMES utf8mb4", ALL);
        assertThat(session.clientCharset()).isEqualTo(ClientCharset.UTF8MB4);
        assertThat(session.touchesTemporaryTable(classify("SELECT * FROM `Таблица`", ClientCharset.UTF8MB4))).isTrue();
    }

    @Test
    void setNamesCharacterSetAndTheVariableEachChangeTheClientsCharacterSet() {
        RoutingSession session = RoutingSession.open(Fixtures.readWrite());
        ok(session, "SET NAMES koi8r", ALL);
        assertThat(session.clientCharset()).isEqualTo(KOI8R);
        ok(session, "SET CHARACTER SET 'latin1'", ALL);
        assertThat(session.clientCharset().name()).isEqualTo("latin1");
        ok(session, "SET character_set_client = cp1251", ALL);
        assertThat(session.clientCharset().name()).isEqualTo("cp1251");
        ok(session, "SET NAMES utf8mb4 COLLATE utf8mb4_bin", ALL);
        assertThat(session.clientCharset()).isEqualTo(ClientCharset.UTF8MB4);
        ok(session, "SET character_set_client = @@character_set_server", ALL);
        assertThat(session.clientCharset()).as("an expression: the last one known").isEqualTo(ClientCharset.UTF8MB4);
        session.reset();
        assertThat(session.clientCharset()).as("a reset goes back to the login's").isEqualTo(ClientCharset.UTF8MB4);
    }

    @Test
    void eachCommandOfTheReplayHistoryKeepsTheCharacterSetItWasWrittenIn() {
        RoutingSession session = RoutingSession.open(Fixtures.readWrite());
        ok(session, "SET CHARACTER SET koi8r", ALL);
        ok(session, "USE `База`", ALL);
        ok(session, "SET NAMES utf8mb4", ALL);
        List<SessionCommand> history = session.replayHistory();
        // SET NAMES replaces SET CHARACTER SET; the USE keeps the character set it needs.
        assertThat(history).extracting(SessionCommand::sql).containsExactly("USE `База`", "SET NAMES utf8mb4");
        SessionCommand use = history.get(0);
        assertThat(use.charset()).isEqualTo(KOI8R);
        assertThat(use.bytes()).as("the bytes the client sent").isEqualTo(KOI8R.encode("USE `База`"));
        assertThat(use.isAscii()).isFalse();
        assertThat(session.schema()).contains("База");
    }
}
