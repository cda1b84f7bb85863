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

    /**
     * Any bytes at all, in single- and multi-byte character sets: the search answers a list and
     * never throws (a throw would cost the session), and what it finds lies in the text, in order,
     * without overlap — the text is rebuilt around each KILL it finds.
     */
    @Test
    void mangledTextsNeverMakeTheSearchThrow() {
        final String punctuation = "();`'\"*/-# \n\\0123456789";
        String[] seeds = {"KILL 12", "KILL QUERY 7; SELECT 1", "SELECT 1; kill connection 42; KILL HARD QUERY 9",
            "/* c */ KILL 12566; SELECT SLEEP(0.05); KILL QUERY 3", "KILL USER app; KILL 2 + 3; KILL QUERY ID 5",
            "SELECT (1; KILL 3); KILL `x`; KILL '4'; KILL -- 5\n 6"};
        ClientCharset[] charsets = {ClientCharset.UTF8MB4, ClientCharset.ofCollation(28), ClientCharset.ofCollation(13),
            ClientCharset.ofCollation(8)};
        java.util.Random random = new java.util.Random(20261202L);
        for (int i = 0; i < 200_000; i++) {
            byte[] text = seeds[random.nextInt(seeds.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int changes = 1 + random.nextInt(4);
            for (int c = 0; c < changes; c++) {
                int at = random.nextInt(text.length);
                switch (random.nextInt(3)) {
                    case 0 -> text[at] = (byte) random.nextInt(256);
                    case 1 -> text[at] = (byte) punctuation.charAt(random.nextInt(punctuation.length()));
                    default -> text = java.util.Arrays.copyOfRange(text, 0, Math.max(1, at));
                }
            }
            byte[] input = text;
            ClientCharset charset = charsets[random.nextInt(charsets.length)];
            String shown = charset + ": " + new String(input, java.nio.charset.StandardCharsets.ISO_8859_1);
            List<KillStatement> found;
            try {
                found = KillStatement.find(input, 0, input.length, charset);
            } catch (RuntimeException e) {
                throw new AssertionError("the search threw on " + shown, e);
            }
            int end = 0;
            for (KillStatement kill : found) {
                assertThat(kill.start()).as(shown).isGreaterThanOrEqualTo(end);
                assertThat(kill.end()).as(shown).isGreaterThanOrEqualTo(kill.start()).isLessThanOrEqualTo(input.length);
                kill.connectionId();
                end = kill.end();
            }
        }
    }
}
