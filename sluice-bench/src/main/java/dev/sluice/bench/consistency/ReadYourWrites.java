package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code session} promise: each session owns a row, writes a fresh value to it and reads it
 * back at once on the same connection. Reading anything older is a violation. The read follows
 * the write's acknowledgement with no pause, which is the hardest case for a replica and the
 * common one in applications (save, then show).
 */
final class ReadYourWrites implements Workload {
    static final String TABLE = "cc_session";

    @Override
    public CheckMode mode() {
        return CheckMode.SESSION;
    }

    @Override
    public List<SessionLoop> open(Target target) throws SQLException {
        List<SessionLoop> sessions = new ArrayList<>();
        try {
            for (int row = 1; row <= target.sessions(); row++) {
                sessions.add(new Session(target, row));
            }
        } catch (SQLException e) {
            sessions.forEach(SessionLoop::close);
            throw e;
        }
        return sessions;
    }

    private static final class Session implements SessionLoop {
        private final Target target;
        private final int row;
        private long value;
        private Connection connection;

        Session(Target target, int row) throws SQLException {
            this.target = target;
            this.row = row;
            this.value = target.valueBase();
            this.connection = target.connections().open(target.url());
        }

        @Override
        public void step(Tally tally) throws SQLException {
            long written = ++value;
            Rows.write(connection, TABLE, row, written);
            tally.wrote();
            long acknowledged = System.nanoTime();
            ReadResult read = Rows.read(connection, "", TABLE, row);
            long answered = System.nanoTime();
            tally.read(read, written, target.onReplica(read), answered - acknowledged, row,
                    answered - acknowledged, "");
        }

        @Override
        public void reconnect() throws SQLException {
            close();
            connection = target.connections().open(target.url());
        }

        @Override
        public void close() {
            JdbcClose.quietly(connection);
        }
    }
}
