package dev.sluice.bench.consistency;

import java.util.Locale;

/** The consistency levels of BEHAVIOUR §5; each is reached through its own Sluice endpoint. */
enum Level {
    EVENTUAL,
    SESSION,
    GLOBAL;

    /** The name used in Sluice's configuration and on the command line. */
    String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Level parse(String name) {
        for (Level level : values()) {
            if (level.configName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return level;
            }
        }
        throw new IllegalArgumentException("unknown consistency level '" + name + "' (eventual, session, global)");
    }
}
