package dev.sluice.server.frontend;

import dev.sluice.protocol.response.BinaryResultWriter;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Sluice answering the client's current command itself, as the server would have: an OK with the
 * status the client was last given, {@code sluice_last_gtid()} in the text and the binary
 * protocol, a number the transaction pool remembers for the client. Such an answer is the client's
 * previous statement for {@code ROW_COUNT()} and {@code FOUND_ROWS()} (BEHAVIOUR §7).
 */
record LocalAnswers(ClientReplies replies, ClientStatus status, PreviousStatement previous,
        RoutingSession routing) {
    /** An OK with the status the client was last given. */
    void ok() {
        replies.ok(status.flags());
    }

    /** The current command was answered by Sluice with an OK carrying {@code newFlags}; not yet sent. */
    void answeredOk(int newFlags) {
        status.set(newFlags);
        previous.answeredLocally(false);
    }

    /** The current command is refused with this error; the session goes on. */
    void error(int code, String sqlState, String message) {
        replies.error(code, sqlState, message);
    }

    /** {@code SELECT sluice_last_gtid()}: the GTID of this session's last commit, a consistency token. */
    void lastGtid(Statement statement) {
        replies.textResult(status.flags(), List.of(LastGtidAnswer.column(statement)),
                List.of(LastGtidAnswer.row(routing)));
        previous.answeredLocally(true);
    }

    /** A prepared {@code sluice_last_gtid()} executed: the same answer in the binary protocol. */
    void lastGtidBinary(Statement statement) {
        ByteBuf out = replies.alloc().buffer();
        BinaryResultWriter.write(out, replies.sequence(), replies.capabilities(), status.flags(),
                LastGtidAnswer.columns(statement), List.of(LastGtidAnswer.row(routing)));
        replies.send(out);
        previous.answeredLocally(true);
    }

    /** PREPARE of a statement Sluice answers itself: its PREPARE_OK, under the client's id. */
    void prepared(int clientId, Statement statement) {
        ByteBuf out = replies.alloc().buffer();
        BinaryResultWriter.writePrepareOk(out, replies.sequence(), replies.capabilities(), clientId,
                LastGtidAnswer.columns(statement));
        replies.send(out);
    }

    /**
     * {@code SELECT ROW_COUNT()} or {@code SELECT FOUND_ROWS()} under a transaction pool: answered
     * from what the client's own previous statement returned (BEHAVIOUR §7).
     */
    void number(String column, long value) {
        List<String> row = new ArrayList<>(1);
        row.add(Long.toString(value));
        replies.textResult(status.flags(), List.of(column), List.of(row));
        previous.answeredLocally(true);
    }
}
