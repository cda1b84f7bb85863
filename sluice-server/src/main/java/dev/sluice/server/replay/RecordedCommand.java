package dev.sluice.server.replay;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One command of a recorded transaction, as it is sent again on another connection (BEHAVIOUR §10):
 * a text statement, or one execution of a prepared statement.
 */
public sealed interface RecordedCommand {
    /** Bytes it holds, counted against {@code transaction-replay-max-size}. */
    long size();

    /** The statement's text, for the client's error when its replay differs. */
    String text();

    /** A COM_QUERY: its payload, command byte included. */
    record Text(byte[] payload) implements RecordedCommand {
        @Override
        public long size() {
            return payload.length;
        }

        @Override
        public String text() {
            return new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
        }
    }

    /**
     * A COM_STMT_EXECUTE, everything a new connection needs to run it alike: the statement's
     * COM_STMT_PREPARE packet (header included: the statement may be closed by the time of the
     * replay), the execute's payload under the id the client knows it by and carrying its parameter
     * types whether or not the client sent them this time ({@link ExecutePayload#forReplay}), and
     * the payloads of the COM_STMT_SEND_LONG_DATA the client sent for it, in order.
     */
    record Execution(int clientStatementId, byte[] prepareFrame, byte[] execute, List<byte[]> longData)
            implements RecordedCommand {
        /** The prepare packet's header and command byte, before the statement's text. */
        private static final int TEXT_OFFSET = 5;

        public Execution {
            longData = List.copyOf(longData);
        }

        @Override
        public long size() {
            long n = prepareFrame.length + execute.length;
            for (byte[] d : longData) {
                n += d.length;
            }
            return n;
        }

        @Override
        public String text() {
            return new String(prepareFrame, TEXT_OFFSET, prepareFrame.length - TEXT_OFFSET, StandardCharsets.UTF_8);
        }
    }
}
