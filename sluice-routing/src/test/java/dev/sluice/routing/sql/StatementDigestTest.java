package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * BEHAVIOUR §12: every case of {@code digest-cases.tsv} (statement → digest text and hints), and
 * the digest's contract.
 */
class StatementDigestTest {

    private final StatementDigest digest = new StatementDigest();

    @TestFactory
    Stream<DynamicTest> everyCaseOfTheTable() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("digest-cases.tsv"));
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            while ((line = r.readLine()) != null) {
                number++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                String sql = fields[0].replace("\\n", "\n").replace("\\t", "\t");
                String expected = fields[1];
                String hints = fields.length > 2 ? fields[2] : "";
                tests.add(DynamicTest.dynamicTest("line " + number + ": " + fields[0], () -> {
                    StatementDigest d = new StatementDigest().digest(sql);
                    assertThat(d.text()).isEqualTo(expected);
                    assertThat(StatementDigest.hintText(d.hints())).isEqualTo(hints);
                }));
            }
        }
        assertThat(tests).hasSizeGreaterThan(60);
        return tests.stream();
    }

    @Test
    void statementsThatShareADigestShareItsHashAndText() {
        digest.digest("SELECT * FROM t WHERE id IN (1, 2, 3)");
        long hash = digest.hash();
        byte[] text = digest.textBytes();
        digest.digest("SELECT  *  FROM t\n WHERE id IN ('a') -- other literals");
        assertThat(digest.hash()).isEqualTo(hash);
        assertThat(digest.textEquals(text)).isTrue();
    }

    @Test
    void aHintOrADifferentTextMakesAnotherDigest() {
        long plain = digest.digest("SELECT 1").hash();
        byte[] text = digest.textBytes();
        assertThat(digest.digest("/*FORCE_MASTER*/ SELECT 1").hash()).isNotEqualTo(plain);
        assertThat(digest.textEquals(text)).as("the text is the same, the hint is apart").isTrue();
        assertThat(digest.digest("SELECT 1, 2").hash()).isNotEqualTo(plain);
        assertThat(digest.textEquals(text)).isFalse();
        assertThat(digest.digest("SELECT a").textEquals(text)).isFalse();
    }

    @Test
    void aLongStatementIsCutAtTheLimitAndEndsWithAnEllipsis() {
        StringBuilder sql = new StringBuilder("SELECT c0");
        for (int i = 1; i < 500; i++) {
            sql.append(", c").append(i);
        }
        digest.digest(sql.append(" FROM t").toString());
        assertThat(digest.length()).isEqualTo(StatementDigest.MAX_TEXT_BYTES);
        assertThat(digest.text()).startsWith("SELECT c0, c1, c2").endsWith("...");
        long cut = digest.hash();
        assertThat(digest.digest(sql.append(" WHERE id = 1").toString()).hash())
                .as("statements that agree up to the cut share a digest").isEqualTo(cut);
    }

    @Test
    void aHugeInListFoldsEvenPastTheLimit() {
        StringBuilder sql = new StringBuilder("SELECT * FROM t WHERE id IN (0");
        for (int i = 1; i < 10_000; i++) {
            sql.append(", ").append(i);
        }
        digest.digest(sql.append(") AND v = 'x'").toString());
        assertThat(digest.text()).isEqualTo("SELECT * FROM t WHERE id IN (...) AND v = ?");
    }

    @Test
    void emptyTextHasAnEmptyDigest() {
        assertThat(digest.digest("").text()).isEmpty();
        assertThat(digest.digest("  -- nothing\n").text()).isEmpty();
    }

    @Test
    void readsOnlyItsRangeOfTheBuffer() {
        byte[] bytes = "xxSELECT 1yy".getBytes(StandardCharsets.UTF_8);
        assertThat(digest.digest(bytes, 2, 8, ClientCharset.UTF8MB4).text()).isEqualTo("SELECT ?");
    }

    @Test
    void reusedForRandomTextItNeverThrowsAndAgreesWithAFreshInstance() {
        Random random = new Random(18);
        String alphabet = "SELECT INVALUES()',\"`-+*/;=<>@ 0123456789abc\n#\\?.";
        for (int i = 0; i < 20_000; i++) {
            int length = random.nextInt(60);
            StringBuilder s = new StringBuilder();
            for (int j = 0; j < length; j++) {
                s.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String sql = s.toString();
            StatementDigest fresh = new StatementDigest().digest(sql);
            digest.digest(sql);
            assertThat(digest.text()).as(sql).isEqualTo(fresh.text());
            assertThat(digest.hash()).as(sql).isEqualTo(fresh.hash());
        }
    }
}
