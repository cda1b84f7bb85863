package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The per-thread scanner is reused: no state may leak from one statement into the next. */
class ScannerReuseTest {

    @Test
    void reusedScannerGivesTheSameAnswerAsAFreshOne() throws Exception {
        List<String> corpus = new ArrayList<>();
        ClassifierTableTest.cases().forEach(c -> corpus.add(c.sql()));
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 5; round++) {
            Collections.shuffle(corpus, random);
            for (String sql : corpus) {
                byte[] bytes = sql.getBytes(StandardCharsets.UTF_8);
                Statement reused = SqlClassifier.classify(bytes, 0, bytes.length);
                Statement fresh = SqlClassifier.classifyWithNewScanner(bytes, 0, bytes.length);
                assertThat(reused).as("seed %d: %s", seed, sql).isEqualTo(fresh);
            }
        }
    }

    @Test
    void aScannerThatFailedHalfwayStartsCleanNextTime() {
        Statement before = SqlClassifier.classify("SELECT * FROM t");
        SqlClassifier.classify("CREATE TEMPORARY TABLE x (a INT); SET @a = (");
        SqlClassifier.classify("SET STATEMENT a=1 FOR SET STATEMENT");
        assertThat(SqlClassifier.classify("SELECT * FROM t")).isEqualTo(before);
    }
}
