package dev.sluice.bench.consistency;

import java.util.Locale;

/**
 * What a run checks. Each mode is run against every level so that the level which does
 * <em>not</em> promise it shows what the promise is worth (and that the checker can see a broken
 * one); {@link #promisedAt(Level)} says which results must have no violation.
 */
enum CheckMode {
    /** Write, then read back at once on the same connection. */
    SESSION("read-your-writes"),
    /** Read on one connection what another one has already committed. */
    GLOBAL("cross-session"),
    /** Hand {@code sluice_last_gtid()} to another connection as a {@code CONSISTENT_WITH} hint. */
    TOKEN("token handoff");

    private final String description;

    CheckMode(String description) {
        this.description = description;
    }

    String description() {
        return description;
    }

    String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether Sluice promises this check at {@code level}: then a single violation is a bug. */
    boolean promisedAt(Level level) {
        return switch (this) {
            case SESSION -> level != Level.EVENTUAL;
            case GLOBAL -> level == Level.GLOBAL;
            // The hint overrides the level (BEHAVIOUR §5: hints override consistency levels).
            case TOKEN -> true;
        };
    }

    static CheckMode parse(String name) {
        for (CheckMode mode : values()) {
            if (mode.cliName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "' (session, global, token, all)");
    }
}
