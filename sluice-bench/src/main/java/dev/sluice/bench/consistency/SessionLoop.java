package dev.sluice.bench.consistency;

import java.sql.SQLException;

/**
 * One client session of a workload: its own connection(s) and one iteration of what it repeats.
 * The driver runs each on its own thread; a session keeps no state across a reconnect that could
 * make it expect more than its new connection owes it.
 */
interface SessionLoop extends AutoCloseable {

    /** One iteration (a write and/or a checked read), recorded into {@code tally}. */
    void step(Tally tally) throws SQLException;

    /** Drops the connections after an error and opens new ones. */
    void reconnect() throws SQLException;

    @Override
    void close();
}
