package dev.sluice.server.backend;

import java.util.List;
import java.util.Optional;

/**
 * The answer to a query Sluice ran for itself (monitor checks, account loading, GTID waits):
 * column names and types, rows of nullable text values, or the server's error.
 *
 * @param columnTypes each column's protocol type ({@code MYSQL_TYPE_*}), in the order of {@code columns}
 */
public record QueryResult(List<String> columns, List<Integer> columnTypes, List<List<String>> rows,
        long affectedRows, Optional<BackendException.ServerError> error) {

    /** A result whose column types nobody needs. */
    public QueryResult(List<String> columns, List<List<String>> rows, long affectedRows,
            Optional<BackendException.ServerError> error) {
        this(columns, List.of(), rows, affectedRows, error);
    }

    public boolean isError() {
        return error.isPresent();
    }

    /** The value of {@code column} in the first row, if there is one. */
    public Optional<String> first(String column) {
        int i = columns.indexOf(column);
        if (i < 0 || rows.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(rows.get(0).get(i));
    }

    /** Value at (row, column name), null when SQL NULL or absent. */
    public String value(List<String> row, String column) {
        int i = columns.indexOf(column);
        return i < 0 || i >= row.size() ? null : row.get(i);
    }
}
