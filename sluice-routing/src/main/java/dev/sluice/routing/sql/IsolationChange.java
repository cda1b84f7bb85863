package dev.sluice.routing.sql;

/**
 * A change of isolation level by {@code SET [SESSION] TRANSACTION ISOLATION LEVEL …} or by
 * assigning {@code transaction_isolation} / {@code tx_isolation}.
 *
 * @param level        the new level
 * @param sessionScope true for the session; false for {@code SET TRANSACTION …}, which only
 *                     affects the next transaction
 */
public record IsolationChange(IsolationLevel level, boolean sessionScope) {
}
