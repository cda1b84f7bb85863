package dev.sluice.routing.sql;

import java.util.Objects;
import java.util.Set;

/**
 * A statement that changes session state and therefore goes to every backend of the session
 * (SPEC §3), with what a backend opened later must replay.
 *
 * @param sql                   the text to send and replay
 * @param variables             what it sets, lower case: system variable names, or pseudo-keys such as
 *                              {@link #SCHEMA} and {@link #ROLE}; a later command setting a superset
 *                              of these replaces this one in the replay history
 * @param dependsOnSessionState its values read variables ({@code SET sql_mode = CONCAT(@@sql_mode, …)}),
 *                              so it must be replayed after its predecessors and never replaces them
 * @param replayed              false for one-shot commands ({@code SET TRANSACTION …} applies to
 *                              the next transaction only)
 */
public record SessionCommand(String sql, Set<String> variables, boolean dependsOnSessionState, boolean replayed) {

    /** Pseudo-variable set by USE / COM_INIT_DB. */
    public static final String SCHEMA = "#schema";
    /** Pseudo-variable set by SET ROLE. */
    public static final String ROLE = "#role";

    public SessionCommand {
        Objects.requireNonNull(sql, "sql");
        variables = Set.copyOf(variables);
    }

    /** The command a COM_INIT_DB amounts to, for replay on backends opened later. */
    public static SessionCommand useSchema(String schema) {
        return new SessionCommand("USE `" + schema.replace("`", "``") + "`", Set.of(SCHEMA), false, true);
    }

    /** Whether this command makes {@code older} useless in a replay history. */
    public boolean supersedes(SessionCommand older) {
        return replayed && !dependsOnSessionState && variables.containsAll(older.variables);
    }
}
