package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code global} promise: a read sees every transaction the primary had committed when the
 * read arrived, whoever committed it. Writers commit increasing values to their own row
 * <em>directly on the primary</em> — so Sluice cannot have learned anything from them — and post
 * each value on a {@link Board} once the commit has returned. Readers, on other connections
 * through the endpoint under test, take the posted value first and then read the row: anything
 * older is a violation, because that commit was acknowledged before the read was sent.
 *
 * <p>Writers are paced ({@code --writer-rate}): flat out, a few writers on a small machine push
 * the replicas so far behind that every {@code global} read ends on the primary, which measures
 * the machine rather than the level.
 */
final class CrossSessionReads implements Workload {
    static final String TABLE = "cc_global";

    @Override
    public CheckMode mode() {
        return CheckMode.GLOBAL;
    }

    @Override
    public List<SessionLoop> open(Target target) throws SQLException {
        Board board = new Board(target.writers());
        List<SessionLoop> sessions = new ArrayList<>();
        try {
            for (int row = 1; row <= target.writers(); row++) {
                sessions.add(new Writer(target, row, board));
            }
            for (int reader = 0; reader < target.sessions(); reader++) {
                sessions.add(new Reader(target, reader, board));
            }
        } catch (SQLException e) {
            sessions.forEach(SessionLoop::close);
            throw e;
        }
        return sessions;
    }

    /** The last value acknowledged per row, and when: what every reader is owed. */
    private static final class Board {
        private final AtomicReferenceArray<Commit> rows;

        Board(int writers) {
            rows = new AtomicReferenceArray<>(writers + 1);
            long now = System.nanoTime();
            for (int row = 1; row <= writers; row++) {
                rows.set(row, new Commit(0, now));
            }
        }

        void post(int row, long value, long acknowledgedNanos) {
            rows.set(row, new Commit(value, acknowledgedNanos));
        }

        Commit latest(int row) {
            return rows.get(row);
        }

        int writers() {
            return rows.length() - 1;
        }
    }

    private record Commit(long value, long acknowledgedNanos) {
    }

    private static final class Writer implements SessionLoop {
        private final Target target;
        private final int row;
        private final Board board;
        private final long intervalNanos;
        private long value;
        private long nextCommitNanos = System.nanoTime();
        private Connection connection;

        Writer(Target target, int row, Board board) throws SQLException {
            this.target = target;
            this.row = row;
            this.board = board;
            this.intervalNanos = target.writerRate() == 0 ? 0 : 1_000_000_000L / target.writerRate();
            this.value = target.valueBase();
            this.connection = target.connections().open(target.primaryUrl());
        }

        @Override
        public void step(Tally tally) throws SQLException {
            if (intervalNanos > 0) {
                // A fixed schedule, not a pause after each commit: the rate holds when commits slow down.
                nextCommitNanos += intervalNanos;
                LockSupport.parkNanos(nextCommitNanos - System.nanoTime());
            }
            long written = ++value;
            Rows.write(connection, TABLE, row, written);
            tally.wrote();
            board.post(row, written, System.nanoTime());
        }

        @Override
        public void reconnect() throws SQLException {
            close();
            connection = target.connections().open(target.primaryUrl());
        }

        @Override
        public void close() {
            JdbcClose.quietly(connection);
        }
    }

    private static final class Reader implements SessionLoop {
        private final Target target;
        private final Board board;
        private int next;
        private Connection connection;

        Reader(Target target, int index, Board board) throws SQLException {
            this.target = target;
            this.board = board;
            this.next = index;
            this.connection = target.connections().open(target.url());
        }

        @Override
        public void step(Tally tally) throws SQLException {
            int row = 1 + next++ % board.writers();
            Commit owed = board.latest(row);
            long sent = System.nanoTime();
            ReadResult read = Rows.read(connection, "", TABLE, row);
            long answered = System.nanoTime();
            tally.read(read, owed.value(), target.onReplica(read), answered - sent, row,
                    answered - owed.acknowledgedNanos(), "");
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
