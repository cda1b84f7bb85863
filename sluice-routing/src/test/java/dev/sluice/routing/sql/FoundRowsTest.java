package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * BEHAVIOUR §7: FOUND_ROWS() after a statement, as MariaDB 10.11 answered it for each of these
 * over a five-row table (rows sent → FOUND_ROWS()), told from the text and the rows sent only
 * where that is exact.
 */
class FoundRowsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT * FROM t                                              | 0
            select * from t limit 2                                      | 0
            SELECT * FROM t LIMIT 2,1                                    | 2
            SELECT * FROM t LIMIT 2 , 1;                                 | 2
            SELECT * FROM t LIMIT 1 OFFSET 3                             | 3
            SELECT * FROM t limit 1 offset 3 FOR UPDATE                  | 3
            SELECT * FROM t ORDER BY b DESC LIMIT 2,1 LOCK IN SHARE MODE | 2
            SELECT * FROM (SELECT a FROM t LIMIT 1,3) d                  | 0
            SELECT * FROM (SELECT a FROM t LIMIT 1,3) d LIMIT 1,1        | 1
            SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE a > 2) LIMIT 1,1 | 1
            WITH c AS (SELECT a FROM t LIMIT 4) SELECT * FROM c LIMIT 2,1 | 2
            SELECT 'a UNION b', `offset` FROM t LIMIT 1                  | 0
            SELECT /*+ NO_RANGE_OPTIMIZATION(t) */ a FROM t LIMIT 0,1    | 0
            SELECT a FROM t UNION SELECT a FROM u LIMIT 2,1              | -1
            SELECT a FROM t UNION ALL SELECT a FROM u                    | -1
            SELECT * FROM (SELECT 1 UNION SELECT 2) d                    | -1
            SELECT a FROM t INTERSECT SELECT a FROM u                    | -1
            SELECT a FROM t EXCEPT SELECT a FROM u                       | -1
            (SELECT a FROM t LIMIT 2,1)                                  | -1
            VALUES (1),(2),(3)                                           | -1
            SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY | -1
            SELECT a FROM t ORDER BY a FETCH FIRST 1 ROWS WITH TIES      | -1
            SELECT * FROM t LIMIT ROWS EXAMINED 2                        | -1
            SELECT * FROM t LIMIT 1 ROWS EXAMINED 2                      | -1
            SELECT * FROM t LIMIT ?,?                                    | -1
            SELECT * FROM t LIMIT 1 OFFSET ?                             | -1
            SELECT * FROM t LIMIT 1 LIMIT 2                              | -1
            SELECT a FROM t PROCEDURE ANALYSE()                          | -1
            SELECT 1; SELECT 2                                           | -1
            SHOW TABLES                                                  | -1
            EXPLAIN SELECT * FROM t                                      | -1
            CHECK TABLE t                                                | -1
            INSERT INTO t SELECT * FROM u                                | -1
            SELECT 'unterminated                                         | -1
            """)
    void theOffsetOfTheOutermostLimitWhenTheCountFollowsFromTheRowsSent(String sql, long offset) {
        assertThat(FoundRows.offsetOf(sql)).isEqualTo(offset);
    }

    @ParameterizedTest(name = "offset {0}, {1} rows sent: {2}")
    @CsvSource({
        "0, 2, 2",       // LIMIT 2
        "0, 0, 0",       // LIMIT 0, or nothing matched
        "2, 1, 3",       // LIMIT 2,1: the two rows skipped count
        "4, 1, 5",       // LIMIT 4,5 over five rows
        "10, 0, -1",     // LIMIT 10,1 over five rows: the server says 5, the rows sent cannot tell
        "3, 0, -1",      // LIMIT 3,0: the server says 0
        "-1, 4, -1",     // a UNION
        "0, -1, -1",     // an OK, no rows
    })
    void theCountFromTheOffsetAndTheRowsSent(long offset, long rowsSent, long found) {
        assertThat(FoundRows.after(offset, rowsSent)).isEqualTo(found);
    }
}
