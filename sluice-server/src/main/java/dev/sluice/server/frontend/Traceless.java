package dev.sluice.server.frontend;

import dev.sluice.routing.sql.SessionCommand;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementKind;
import dev.sluice.routing.sql.StatementProperty;
import io.netty.buffer.ByteBuf;
import java.util.EnumSet;
import java.util.Set;

/**
 * Statements after which a connection carries nothing its state tag does not describe, so that
 * it can serve another session with the same tag without a reset (BEHAVIOUR §7, session pool): SETs
 * that are replayed (the tag lists them) and plain reads. Anything else may leave something a
 * next client must not see: a write (LAST_INSERT_ID, ROW_COUNT), a user variable, a lock, a
 * sequence's LASTVAL, SQL_CALC_FOUND_ROWS' count.
 */
final class Traceless {
    private static final Set<StatementKind> READS = EnumSet.of(StatementKind.SELECT, StatementKind.SHOW,
            StatementKind.DESCRIBE, StatementKind.HELP);
    private static final Set<StatementProperty> TRACES = EnumSet.of(StatementProperty.LOCKING_READ,
            StatementProperty.SELECT_INTO, StatementProperty.USER_VARIABLE_WRITE, StatementProperty.STORED_FUNCTION,
            StatementProperty.LAST_INSERT_ID, StatementProperty.LOCKING_FUNCTION, StatementProperty.SEQUENCE,
            StatementProperty.MULTI_STATEMENT, StatementProperty.MALFORMED, StatementProperty.PINS_SESSION);

    private Traceless() {
    }

    /** Whether {@code statement} (a COM_QUERY's, {@code frame}; not a prepared one) leaves no trace. */
    static boolean of(Statement statement, ByteBuf frame, Binding binding) {
        if (binding != null || !withoutTraces(statement)) {
            return false;
        }
        return isReplayedSessionCommand(statement)
                || READS.contains(statement.kind()) && !PreviousStatement.calculatesFoundRows(frame);
    }

    /** A SET (or USE) that the replay history carries, and nothing besides: its whole effect is in the tag. */
    static boolean replayedSessionCommand(Statement statement) {
        return withoutTraces(statement) && isReplayedSessionCommand(statement);
    }

    private static boolean isReplayedSessionCommand(Statement statement) {
        return statement.sessionCommand().map(SessionCommand::replayed).orElse(false);
    }

    private static boolean withoutTraces(Statement statement) {
        if (statement.locksAny()) {
            return false;
        }
        for (StatementProperty p : statement.properties()) {
            if (TRACES.contains(p)) {
                return false;
            }
        }
        return true;
    }
}
