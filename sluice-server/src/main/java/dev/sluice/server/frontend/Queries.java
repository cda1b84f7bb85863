package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseKind;
import dev.sluice.routing.RouteDecision;
import dev.sluice.routing.Router;
import dev.sluice.routing.session.RoutingSession;
import dev.sluice.routing.sql.Statement;
import dev.sluice.routing.sql.StatementProperty;
import dev.sluice.server.auth.AccountStore;
import dev.sluice.server.runtime.EndpointRuntime;
import io.netty.buffer.ByteBuf;
import java.util.Optional;

/**
 * COM_QUERY, a text of SQL: classified, its KILLs resolved by Sluice ({@link KillCommands}), its
 * {@code CONNECTION_ID()} calls replaced ({@link OwnConnectionId}), under a transaction pool what
 * it reads of the previous statement taken care of ({@link PreviousStatement}), then routed and
 * run.
 */
final class Queries {
    private final RoutingSession routing;
    private final EndpointRuntime endpoint;
    private final RouteExecutor executor;
    private final KillCommands kills;
    private final OwnConnectionId ownId;
    private final PreviousStatement previous;
    private final TransactionPoolHandBack handBack;
    private final LocalAnswers answers;
    private final AccountStore accounts;

    Queries(RoutingSession routing, EndpointRuntime endpoint, RouteExecutor executor, KillCommands kills,
            OwnConnectionId ownId, PreviousStatement previous, TransactionPoolHandBack handBack,
            LocalAnswers answers, AccountStore accounts) {
        this.routing = routing;
        this.endpoint = endpoint;
        this.executor = executor;
        this.kills = kills;
        this.ownId = ownId;
        this.previous = previous;
        this.handBack = handBack;
        this.answers = answers;
        this.accounts = accounts;
    }

    void query(CommandFrame f) {
        Statement statement = Commands.classify(f.bytes(), routing.clientCharset());
        if (!kills.tryQuery(f, statement, this::query)) {
            query(statement, f);
        }
    }

    private void query(Statement classified, CommandFrame f) {
        Statement statement = classified;
        if (OwnConnectionId.mayCall(statement)) {
            Optional<ByteBuf> own = ownId.rewrite(f.bytes());
            if (own.isPresent()) {
                f.replace(own.get());
                statement = Commands.classify(f.bytes(), routing.clientCharset());
            }
        }
        if (endpoint.config().policy().connectionPool() == dev.sluice.routing.policy.ConnectionPoolMode.TRANSACTION
                && !previousStatementAnswers(statement, f.bytes())) {
            f.release();
            return;
        }
        RouteDecision decision = Router.route(statement, routing, endpoint.view(), endpoint);
        CommandListener accountWatch = AccountChangeWatch.of(statement, f.bytes(), accounts);
        executor.run(RoutedCommand.text(statement, decision, f.take(), ResponseKind.RESULT, accountWatch));
    }

    /**
     * Transaction pool (BEHAVIOUR §7): the backend connection that ran the client's previous statement
     * may be serving another client now. {@code SELECT ROW_COUNT()} is answered from the client's
     * own last OK, a plain {@code SELECT FOUND_ROWS()} after a SELECT from its rows and offset
     * (returns false: the command is done); a statement with SQL_CALC_FOUND_ROWS keeps
     * its connection for the FOUND_ROWS() that follows, and so does one whose count turns out to
     * be the server's alone ({@link PreviousStatement#foundRowsOnConnection()}); {@code LAST_INSERT_ID(expr)} puts a value
     * on the connection that Sluice cannot read back, so the client keeps that connection.
     */
    private boolean previousStatementAnswers(Statement statement, ByteBuf frame) {
        if (statement.has(StatementProperty.PREVIOUS_TARGET)) {
            Optional<String> rowCount = PreviousStatement.rowCountQuery(frame);
            if (rowCount.isPresent()) {
                answers.number(rowCount.get(), previous.rowCount());
                return false;
            }
            Optional<String> foundRows = PreviousStatement.foundRowsQuery(frame);
            if (foundRows.isPresent() && previous.foundRows() >= 0) {
                answers.number(foundRows.get(), previous.foundRows());
                return false;
            }
        }
        previous.countsFoundRows(Commands.foundRowsOffset(frame, routing.clientCharset()));
        if (statement.kind().isRead() && PreviousStatement.calculatesFoundRows(frame)) {
            handBack.holdThroughNextStatement();
            previous.calculatesFoundRows();
        }
        if (statement.has(StatementProperty.LAST_INSERT_ID) && PreviousStatement.setsLastInsertId(frame)) {
            handBack.lockByProtocol();
        }
        return true;
    }
}
