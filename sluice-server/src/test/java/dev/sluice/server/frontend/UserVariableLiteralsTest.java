package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.server.backend.BackendException;
import dev.sluice.server.backend.QueryResult;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UserVariableLiteralsTest {
    private static final int LONGLONG = 8;
    private static final int NEWDECIMAL = 246;
    private static final int DOUBLE = 5;
    private static final int VAR_STRING = 253;
    private static final int MEDIUM_BLOB = 250;

    @Test
    void theQuestionAsksValueBytesCharsetAndCollationOfEachVariable() {
        assertThat(UserVariableLiterals.question(List.of("a", "we`ird"))).isEqualTo(
                "SELECT @`a`, HEX(@`a`), CHARSET(@`a`), COLLATION(@`a`), "
                        + "@`we``ird`, HEX(@`we``ird`), CHARSET(@`we``ird`), COLLATION(@`we``ird`)");
    }

    @Test
    void eachTypeKeepsItsTypeAsALiteral() {
        assertThat(UserVariableLiterals.literal(LONGLONG, "-42", "FFFF", "binary", "binary")).contains("-42");
        assertThat(UserVariableLiterals.literal(NEWDECIMAL, "1.50", "2", "binary", "binary")).contains("1.50");
        assertThat(UserVariableLiterals.literal(DOUBLE, "0.123", "0", "binary", "binary")).contains("0.123e0");
        assertThat(UserVariableLiterals.literal(DOUBLE, "1.5e300", "0", "binary", "binary")).contains("1.5e300");
        assertThat(UserVariableLiterals.literal(VAR_STRING, null, null, null, null)).contains("NULL");
        assertThat(UserVariableLiterals.literal(VAR_STRING, "привет", "D0D2C9D7C5D4", "koi8r", "koi8r_general_ci"))
                .contains("_koi8r X'D0D2C9D7C5D4' COLLATE koi8r_general_ci");
        assertThat(UserVariableLiterals.literal(MEDIUM_BLOB, "\u0001", "01", "binary", "binary")).contains("X'01'");
        assertThat(UserVariableLiterals.literal(VAR_STRING, "", "", "utf8mb4", "utf8mb4_general_ci"))
                .contains("_utf8mb4 X'' COLLATE utf8mb4_general_ci");
    }

    @Test
    void theAssignmentSetsEveryVariableFromOneRow() {
        QueryResult answer = new QueryResult(List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"),
                List.of(LONGLONG, VAR_STRING, VAR_STRING, VAR_STRING, VAR_STRING, VAR_STRING, VAR_STRING, VAR_STRING),
                List.of(Arrays.asList("7", "7", "binary", "binary", "x", "78", "latin1", "latin1_swedish_ci")), 0,
                Optional.empty());
        assertThat(UserVariableLiterals.assignment(List.of("n", "s"), answer))
                .contains("SET @`n` = 7, @`s` = _latin1 X'78' COLLATE latin1_swedish_ci");
    }

    @Test
    void anAnswerThatCannotBeReadGivesNoAssignment() {
        QueryResult error = new QueryResult(List.of(), List.of(), 0,
                Optional.of(new BackendException.ServerError(1064, "42000", "syntax")));
        assertThat(UserVariableLiterals.assignment(List.of("a"), error)).isEmpty();
        QueryResult untyped = new QueryResult(List.of("c1"), List.of(List.of("1")), 0, Optional.empty());
        assertThat(UserVariableLiterals.assignment(List.of("a"), untyped)).isEmpty();
    }
}
