package dev.sluice.bench.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The consistency token: connection A writes, asks Sluice for the GTID of that commit
 * ({@code SELECT sluice_last_gtid()}) and hands it to connection B — a different Sluice session,
 * as another service or pool would be — which reads with <code>/*CONSISTENT_WITH=gtid*&#47;</code> and
 * must see the write. B has written nothing itself, so neither {@code session} nor
 * {@code eventual} would protect it: only the token does.
 *
 * <p>Every other iteration B reads <em>without</em> the token (a control read, not a check): how
 * often that one is stale shows that the token is doing the work in this very run.
 */
final class TokenHandoff implements Workload {
    static final String TABLE = "cc_token";
    /** MariaDB {@code domain-server-seq} lists or MySQL {@code uuid:interval} sets, nothing else. */
    private static final Pattern GTID = Pattern.compile("[0-9A-Fa-f:,\\-\\s]+");

    @Override
    public CheckMode mode() {
        return CheckMode.TOKEN;
    }

    @Override
    public List<SessionLoop> open(Target target) throws SQLException {
        List<SessionLoop> sessions = new ArrayList<>();
        try {
            for (int row = 1; row <= target.sessions(); row++) {
                sessions.add(new Pair(target, row));
            }
        } catch (SQLException e) {
            sessions.forEach(SessionLoop::close);
            throw e;
        }
        return sessions;
    }

    private static final class Pair implements SessionLoop {
        private final Target target;
        private final int row;
        private long value;
        private boolean controlTurn;
        private Connection writer;
        private Connection reader;

        Pair(Target target, int row) throws SQLException {
            this.target = target;
            this.row = row;
            this.value = target.valueBase();
            connect();
        }

        @Override
        public void step(Tally tally) throws SQLException {
            long written = ++value;
            Rows.write(writer, TABLE, row, written);
            tally.wrote();
            long acknowledged = System.nanoTime();
            String token = Rows.single(writer, "SELECT sluice_last_gtid()");
            if (token == null || token.isBlank() || !GTID.matcher(token).matches()) {
                throw new SQLException("sluice_last_gtid() returned '" + token + "' right after a committed write");
            }
            controlTurn = !controlTurn;
            if (controlTurn) {
                tally.controlRead(Rows.read(reader, "", TABLE, row).value(), written);
                return;
            }
            long sent = System.nanoTime();
            ReadResult read = Rows.read(reader, "/*CONSISTENT_WITH=" + token + "*/ ", TABLE, row);
            long answered = System.nanoTime();
            tally.read(read, written, target.onReplica(read), answered - sent, row, answered - acknowledged,
                    "token " + token);
        }

        @Override
        public void reconnect() throws SQLException {
            close();
            connect();
        }

        private void connect() throws SQLException {
            writer = target.connections().open(target.url());
            try {
                reader = target.connections().open(target.url());
            } catch (SQLException e) {
                JdbcClose.quietly(writer);
                throw e;
            }
        }

        @Override
        public void close() {
            JdbcClose.quietly(writer);
            JdbcClose.quietly(reader);
        }
    }
}
