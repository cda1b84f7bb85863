package dev.sluice.routing.sql;

import java.util.Objects;
import java.util.Optional;

/**
 * A table name as written in a statement, unquoted and with ASCII letters lower-cased. Lower-casing
 * makes matching conservative on case-sensitive servers ({@code T} and {@code t} are taken for the
 * same temporary table), which can only send more statements to the primary, never fewer.
 *
 * @param schema the database, when the name was qualified
 * @param name   the table
 */
public record TableName(Optional<String> schema, String name) {

    public TableName {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(name, "name");
    }

    /** An unqualified name, lower-cased as the classifier does. */
    public static TableName of(String name) {
        return new TableName(Optional.empty(), lowerAscii(name));
    }

    /** A qualified name, lower-cased as the classifier does. */
    public static TableName of(String schema, String name) {
        return new TableName(Optional.of(lowerAscii(schema)), lowerAscii(name));
    }

    /** Whether both may denote the same table: same name, and schemas equal when both are given. */
    public boolean sameTableAs(TableName other) {
        return name.equals(other.name)
                && (schema.isEmpty() || other.schema.isEmpty() || schema.equals(other.schema));
    }

    public static String lowerAscii(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            char c = chars[i];
            if (c >= 'A' && c <= 'Z') {
                chars[i] = (char) (c + ('a' - 'A'));
            }
        }
        return new String(chars);
    }

    @Override
    public String toString() {
        return schema.map(s -> s + "." + name).orElse(name);
    }
}
