package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** KILL statements are found alone and among several, with their place in the text and their target. */
class KillStatementTest {

    @Test
    void aLoneKillNamesAConnection() {
        assertThat(KillStatement.find("KILL 12")).containsExactly(
                new KillStatement(0, 7, false, new KillStatement.Target.ConnectionId(12)));
        assertThat(KillStatement.find("/* c */ kill connection 7;")).containsExactly(
                new KillStatement(8, 25, false, new KillStatement.Target.ConnectionId(7)));
        assertThat(KillStatement.find("KILL HARD QUERY 9")).containsExactly(
                new KillStatement(0, 17, true, new KillStatement.Target.ConnectionId(9)));
    }

    @Test
    void killsAmongSeveralStatementsAreFoundWhereTheyAre() {
        String sql = "KILL 12566; SELECT SLEEP(0.05); KILL QUERY 3";
        List<KillStatement> kills = KillStatement.find(sql);
        assertThat(kills).hasSize(2);
        assertThat(sql.substring(kills.get(0).start(), kills.get(0).end())).isEqualTo("KILL 12566");
        assertThat(sql.substring(kills.get(1).start(), kills.get(1).end())).isEqualTo("KILL QUERY 3");
        assertThat(kills.get(1).queryOnly()).isTrue();
    }

    @Test
    void otherTargetsAreNotIds() {
        assertThat(KillStatement.find("KILL USER app").get(0).target()).isInstanceOf(KillStatement.Target.User.class);
        assertThat(KillStatement.find("KILL QUERY ID 5").get(0).target())
                .isInstanceOf(KillStatement.Target.Other.class);
        assertThat(KillStatement.find("KILL 2 + 3").get(0).target()).isInstanceOf(KillStatement.Target.Other.class);
        assertThat(KillStatement.find("KILL CONNECTION_ID()").get(0).connectionId()).isEmpty();
        assertThat(KillStatement.find("KILL 1.5").get(0).connectionId()).isEmpty();
        assertThat(KillStatement.find("KILL 99999999999999999999").get(0).connectionId()).isEmpty();
    }

    @Test
    void killInsideStringsCommentsAndExpressionsIsNoStatement() {
        assertThat(KillStatement.find("SELECT 'KILL 5'; /* KILL 6 */ SELECT 1 -- KILL 7")).isEmpty();
        assertThat(KillStatement.find("SELECT kill FROM t")).isEmpty();
    }
}
