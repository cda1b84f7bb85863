package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CONNECTION_ID() becomes the client's id, and a select item keeps the column name the server
 * would give it (MariaDB names an unaliased item by its text from its first token to its last,
 * comments inside kept, executable-comment markers left out, at most 255 characters).
 */
class ConnectionIdTextTest {
    private static final long ID = 42;
    private static final String LITERAL = "CAST(0000000042 AS UNSIGNED)";

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "SELECT CONNECTION_ID()|SELECT " + LITERAL + " AS `CONNECTION_ID()`",
        "select connection_id();|select " + LITERAL + " AS `connection_id()`;",
        "SELECT CONNECTION_ID() AS id|SELECT " + LITERAL + " AS id",
        "SELECT CONNECTION_ID() id|SELECT " + LITERAL + " id",
        "SELECT CONNECTION_ID() 'id'|SELECT " + LITERAL + " 'id'",
        "SELECT CONNECTION_ID() `i``d`|SELECT " + LITERAL + " `i``d`",
        "SELECT 1, CONNECTION_ID() + 1, 2|SELECT 1, " + LITERAL + " + 1 AS `CONNECTION_ID() + 1`, 2",
        "SELECT DISTINCT CONNECTION_ID() FROM t|SELECT DISTINCT " + LITERAL + " AS `CONNECTION_ID()` FROM t",
        "SELECT CONNECTION_ID( /*c*/ ) # end|SELECT " + LITERAL + " AS `CONNECTION_ID( /*c*/ )` # end",
        "SELECT /* a */ CONNECTION_ID() /* b */, 1|SELECT /* a */ " + LITERAL + " AS `CONNECTION_ID()` /* b */, 1",
        "SELECT CONNECTION_ID() IS NOT NULL|SELECT " + LITERAL + " IS NOT NULL AS `CONNECTION_ID() IS NOT NULL`",
        "SELECT a FROM t WHERE id = CONNECTION_ID()|SELECT a FROM t WHERE id = " + LITERAL,
        "SELECT * FROM (SELECT CONNECTION_ID()) d|SELECT * FROM (SELECT " + LITERAL + " AS `CONNECTION_ID()`) d",
        "SELECT (SELECT CONNECTION_ID())|SELECT (SELECT " + LITERAL + " AS `CONNECTION_ID()`)"
                + " AS `(SELECT CONNECTION_ID())`",
        "SELECT CONNECTION_ID() INTO @me|SELECT " + LITERAL + " AS `CONNECTION_ID()` INTO @me",
        "INSERT INTO t VALUES (CONNECTION_ID())|INSERT INTO t VALUES (" + LITERAL + ")",
        "SET @me = CONNECTION_ID()|SET @me = " + LITERAL,
        "SELECT CONNECTION_ID() = ?|SELECT " + LITERAL + " = ? AS `CONNECTION_ID() = ?`",
        "SELECT 1; SELECT CONNECTION_ID()|SELECT 1; SELECT " + LITERAL + " AS `CONNECTION_ID()`",
        "SELECT `CONNECTION_ID()`(1)|SELECT `CONNECTION_ID()`(1)",
    })
    void replacesEveryCall(String sql, String expected) {
        assertThat(ConnectionIdText.rewrite(sql, ID)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT 'CONNECTION_ID()'",
        "SELECT `CONNECTION_ID()` FROM t",
        "SELECT /* CONNECTION_ID() */ 1",
        "SELECT 1 -- CONNECTION_ID()",
        "SELECT db.CONNECTION_ID()",
        "SELECT connection_id FROM t",
        "CREATE VIEW v AS SELECT CONNECTION_ID()",
        "SELECT 1; CREATE PROCEDURE p() SELECT CONNECTION_ID()",
        "ALTER EVENT e DO INSERT INTO t VALUES (CONNECTION_ID())",
        "SELECT CONNECTION_ID(), 'unterminated",
    })
    void leavesTextThatRunsNoCall(String sql) {
        assertThat(ConnectionIdText.rewrite(sql, ID)).isEqualTo(sql);
    }

    @Test
    void theLiteralHasTheDisplayLengthOfTheFunction() {
        assertThat(new String(ConnectionIdText.literal(7), StandardCharsets.US_ASCII))
                .isEqualTo("CAST(0000000007 AS UNSIGNED)");
        assertThat(new String(ConnectionIdText.literal(4_294_967_295L), StandardCharsets.US_ASCII))
                .isEqualTo("CAST(4294967295 AS UNSIGNED)");
    }

    @Test
    void aLongItemIsNamedByItsFirst255Characters() {
        String item = "CONNECTION_ID()" + " + 1".repeat(100);
        String rewritten = ConnectionIdText.rewrite("SELECT " + item, ID);
        assertThat(rewritten).endsWith(" AS `" + item.substring(0, ConnectionIdText.MAX_COLUMN_NAME) + "`");
    }

    @Test
    void aLineCommentInsideTheItemIsPartOfTheName() {
        assertThat(ConnectionIdText.rewrite("SELECT CONNECTION_ID() -- x\n + 1", ID))
                .isEqualTo("SELECT " + LITERAL + " -- x\n + 1 AS `CONNECTION_ID() -- x\n + 1`");
    }

    @Test
    void anExecutableCommentKeepsItsBodyInTheName() {
        assertThat(ConnectionIdText.rewrite("SELECT CONNECTION_ID() /*M!100000 +2*/ /* z */", ID))
                .isEqualTo("SELECT " + LITERAL + " /*M!100000 +2 AS `CONNECTION_ID()  +2`*/ /* z */");
        assertThat(ConnectionIdText.rewrite("SELECT CONNECTION_ID() /*!+1*/", ID))
                .isEqualTo("SELECT " + LITERAL + " /*!+1 AS `CONNECTION_ID() +1`*/");
    }

    @Test
    void aNameInAnotherCharacterSetStaysInIt() {
        ClientCharset koi8r = ClientCharset.named("koi8r").orElseThrow();
        byte[] sql = koi8r.encode("SELECT CONNECTION_ID() + 0 AS \u0438\u0434");
        byte[] out = ConnectionIdText.rewrite(sql, 0, sql.length, koi8r, ID).orElseThrow();
        assertThat(koi8r.decode(out, 0, out.length)).isEqualTo("SELECT " + LITERAL + " + 0 AS \u0438\u0434");
    }

    /** Any bytes at all: the rewrite answers a text or nothing, and never throws (a throw would cost the session). */
    @Test
    void mangledTextsNeverMakeTheRewriteThrow() {
        String[] seeds = {"SELECT CONNECTION_ID()", "SELECT a, CONNECTION_ID() + 1 AS x, (SELECT CONNECTION_ID()) FROM t",
            "SELECT /* c */ CONNECTION_ID() /* d */, b FROM t WHERE c = CONNECTION_ID(); SELECT 1",
            "select connection_id ( ) , 'CONNECTION_ID()' , `CONNECTION_ID()` from dual"};
        java.util.Random random = new java.util.Random(20261202L);
        for (int i = 0; i < 200_000; i++) {
            byte[] text = seeds[random.nextInt(seeds.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int changes = 1 + random.nextInt(4);
            for (int c = 0; c < changes; c++) {
                int at = random.nextInt(text.length);
                switch (random.nextInt(3)) {
                    case 0 -> text[at] = (byte) random.nextInt(256);
                    case 1 -> text[at] = (byte) "(),;`'\"*/- \n#".charAt(random.nextInt(13));
                    default -> text = java.util.Arrays.copyOfRange(text, 0, Math.max(1, at));
                }
            }
            byte[] input = text;
            org.assertj.core.api.Assertions.assertThatCode(() -> ConnectionIdText.rewrite(input, 0, input.length,
                    ClientCharset.UTF8MB4, 5)).as(new String(input, java.nio.charset.StandardCharsets.ISO_8859_1))
                    .doesNotThrowAnyException();
        }
    }
}
