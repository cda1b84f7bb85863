package dev.sluice.server.frontend;

import dev.sluice.server.backend.QueryResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a {@code SET @v = expr} produced on the primary, written back as literals for the other
 * backends of the session: each gets the very values, not the expression (which may read a clock,
 * a random number or tables a replica has not caught up with). A literal keeps the value's type:
 * an integer, a decimal (with its scale), a double, NULL, or a string with its own character set
 * and collation (its bytes in hexadecimal, so no character set conversion touches them).
 *
 * <pre>
 *   ask:    SELECT @`a`, HEX(@`a`), CHARSET(@`a`), COLLATION(@`a`), @`b`, …
 *   answer: SET @`a` = 42, @`b` = _koi8r X'F0D2C9D7C5D4' COLLATE koi8r_general_ci
 * </pre>
 */
final class UserVariableLiterals {
    /** Columns the question asks per variable. */
    private static final int COLUMNS_PER_VARIABLE = 4;
    private static final int TYPE_DECIMAL = 0;
    private static final int TYPE_TINY = 1;
    private static final int TYPE_SHORT = 2;
    private static final int TYPE_LONG = 3;
    private static final int TYPE_FLOAT = 4;
    private static final int TYPE_DOUBLE = 5;
    private static final int TYPE_NULL = 6;
    private static final int TYPE_LONGLONG = 8;
    private static final int TYPE_INT24 = 9;
    private static final int TYPE_NEWDECIMAL = 246;
    private static final String BINARY = "binary";

    private UserVariableLiterals() {
    }

    /** The query that reads what the variables hold, on the connection that assigned them. */
    static String question(List<String> names) {
        List<String> columns = new ArrayList<>(names.size() * COLUMNS_PER_VARIABLE);
        for (String name : names) {
            String v = variable(name);
            columns.add(v);
            columns.add("HEX(" + v + ")");
            columns.add("CHARSET(" + v + ")");
            columns.add("COLLATION(" + v + ")");
        }
        return "SELECT " + String.join(", ", columns);
    }

    /** The SET that gives another backend the same values; empty when the answer cannot be read. */
    static Optional<String> assignment(List<String> names, QueryResult answer) {
        if (answer.isError() || answer.rows().size() != 1
                || answer.columnTypes().size() != names.size() * COLUMNS_PER_VARIABLE) {
            return Optional.empty();
        }
        List<String> row = answer.rows().get(0);
        List<String> assignments = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            int at = i * COLUMNS_PER_VARIABLE;
            Optional<String> literal = literal(answer.columnTypes().get(at), row.get(at), row.get(at + 1),
                    row.get(at + 2), row.get(at + 3));
            if (literal.isEmpty()) {
                return Optional.empty();
            }
            assignments.add(variable(names.get(i)) + " = " + literal.get());
        }
        return Optional.of("SET " + String.join(", ", assignments));
    }

    /** One value as a literal of its own type; empty for a value no literal can carry exactly. */
    static Optional<String> literal(int type, String value, String hex, String charset, String collation) {
        if (value == null || type == TYPE_NULL) {
            return Optional.of("NULL");
        }
        switch (type) {
            case TYPE_TINY, TYPE_SHORT, TYPE_LONG, TYPE_LONGLONG, TYPE_INT24, TYPE_DECIMAL, TYPE_NEWDECIMAL -> {
                return Optional.of(value);
            }
            case TYPE_FLOAT, TYPE_DOUBLE -> {
                // An exponent makes it a double; without one, 1.5 would be read back as a decimal.
                String lower = value.toLowerCase(Locale.ROOT);
                if (lower.contains("inf") || lower.contains("nan")) {
                    return Optional.empty();
                }
                return Optional.of(lower.contains("e") ? value : value + "e0");
            }
            default -> {
                if (hex == null || charset == null) {
                    return Optional.empty();
                }
                if (charset.equals(BINARY) || collation == null) {
                    return Optional.of("X'" + hex + "'");
                }
                return Optional.of("_" + charset + " X'" + hex + "' COLLATE " + collation);
            }
        }
    }

    private static String variable(String name) {
        return "@`" + name.replace("`", "``") + "`";
    }
}
