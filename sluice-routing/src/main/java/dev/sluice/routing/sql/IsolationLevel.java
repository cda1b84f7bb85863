package dev.sluice.routing.sql;

import java.util.Optional;

/** Transaction isolation levels. Only the first two allow transaction splitting (BEHAVIOUR §6). */
public enum IsolationLevel {
    READ_UNCOMMITTED,
    READ_COMMITTED,
    REPEATABLE_READ,
    SERIALIZABLE;

    /** Both MySQL and MariaDB start sessions here unless configured otherwise. */
    public static final IsolationLevel SERVER_DEFAULT = REPEATABLE_READ;

    /** Whether each statement gets a fresh view, so a replica can answer the reads before the first write. */
    public boolean allowsSplitting() {
        return this == READ_UNCOMMITTED || this == READ_COMMITTED;
    }

    /**
     * Parses the values the server accepts for {@code transaction_isolation}: {@code READ-COMMITTED},
     * {@code READ COMMITTED}, {@code read_committed} or the enum index {@code 0..3}.
     */
    public static Optional<IsolationLevel> parse(String text) {
        String normal = text.strip().toUpperCase(java.util.Locale.ROOT).replace('-', '_').replace(' ', '_');
        switch (normal) {
            case "0":
            case "READ_UNCOMMITTED":
                return Optional.of(READ_UNCOMMITTED);
            case "1":
            case "READ_COMMITTED":
                return Optional.of(READ_COMMITTED);
            case "2":
            case "REPEATABLE_READ":
                return Optional.of(REPEATABLE_READ);
            case "3":
            case "SERIALIZABLE":
                return Optional.of(SERIALIZABLE);
            default:
                return Optional.empty();
        }
    }
}
