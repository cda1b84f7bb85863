package dev.sluice.routing.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The column of {@code SELECT sluice_last_gtid()} is named as the server would name it: by its alias. */
class LocalAnswerColumnTest {
    @Test
    void theAliasNamesTheColumn() {
        assertThat(SqlClassifier.classify("SELECT sluice_last_gtid()").localAnswerColumn()).contains("sluice_last_gtid()");
        assertThat(SqlClassifier.classify("SELECT sluice_last_gtid() AS gtid").localAnswerColumn()).contains("gtid");
        assertThat(SqlClassifier.classify("select sluice_last_gtid() token;").localAnswerColumn()).contains("token");
        assertThat(SqlClassifier.classify("SELECT sluice_last_gtid() AS `my token`").localAnswerColumn())
                .contains("my token");
        assertThat(SqlClassifier.classify("SELECT sluice_last_gtid() AS 'quoted'").localAnswerColumn())
                .contains("quoted");
        assertThat(SqlClassifier.classify("SELECT 1 AS gtid").localAnswerColumn()).isEmpty();
    }
}
