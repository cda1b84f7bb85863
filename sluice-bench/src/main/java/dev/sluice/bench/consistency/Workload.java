package dev.sluice.bench.consistency;

import java.sql.SQLException;
import java.util.List;

/** One kind of check: the client sessions that carry it out against a {@link Target}. */
sealed interface Workload permits ReadYourWrites, CrossSessionReads, TokenHandoff {

    CheckMode mode();

    /** Opens every session of one run (connected, not yet started). */
    List<SessionLoop> open(Target target) throws SQLException;

    static Workload of(CheckMode mode) {
        return switch (mode) {
            case SESSION -> new ReadYourWrites();
            case GLOBAL -> new CrossSessionReads();
            case TOKEN -> new TokenHandoff();
        };
    }
}
