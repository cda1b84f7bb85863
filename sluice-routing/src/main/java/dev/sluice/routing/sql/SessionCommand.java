package dev.sluice.routing.sql;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A statement that changes session state and therefore goes to every backend of the session
 * (BEHAVIOUR §3), with what a backend opened later must replay.
 *
 * @param sql                   the text to send and replay
 * @param variables             what it sets, lower case: system variable names, or pseudo-keys such as
 *                              {@link #SCHEMA} and {@link #ROLE}; a later command setting a superset
 *                              of these replaces this one in the replay history
 * @param dependsOnSessionState its values read variables ({@code SET sql_mode = CONCAT(@@sql_mode, …)}),
 *                              so it must be replayed after its predecessors and never replaces them
 * @param replayed              false for one-shot commands ({@code SET TRANSACTION …} applies to
 *                              the next transaction only)
 * @param charset               the character set the client wrote it in ({@code character_set_client}
 *                              when it was sent): replayed, it must reach the server in that one
 * @param setsClientCharset     the character set it makes {@code character_set_client}, when it does
 */
public record SessionCommand(String sql, Set<String> variables, boolean dependsOnSessionState, boolean replayed,
        ClientCharset charset, Optional<ClientCharset> setsClientCharset) {

    /** Pseudo-variable set by USE / COM_INIT_DB. */
    public static final String SCHEMA = "#schema";
    /** Pseudo-variable set by SET ROLE. */
    public static final String ROLE = "#role";

    public SessionCommand {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(charset, "charset");
        Objects.requireNonNull(setsClientCharset, "setsClientCharset");
        variables = Set.copyOf(variables);
    }

    /** A command that leaves the client's character set as it is. */
    public SessionCommand(String sql, Set<String> variables, boolean dependsOnSessionState, boolean replayed,
            ClientCharset charset) {
        this(sql, variables, dependsOnSessionState, replayed, charset, Optional.empty());
    }

    /** The command a COM_INIT_DB amounts to, in the client's character set, for replay on backends opened later. */
    public static SessionCommand useSchema(String schema, ClientCharset charset) {
        return new SessionCommand("USE `" + schema.replace("`", "``") + "`", Set.of(SCHEMA), false, true, charset);
    }

    /** The text as the server must receive it: in the character set the client wrote it in. */
    public byte[] bytes() {
        return charset.encode(sql);
    }

    /** Whether its bytes are the same in every character set a client may use (all are ASCII supersets). */
    public boolean isAscii() {
        for (int i = 0; i < sql.length(); i++) {
            if (sql.charAt(i) >= ASCII_LIMIT) {
                return false;
            }
        }
        return true;
    }

    private static final char ASCII_LIMIT = 0x80;

    /** Whether this command makes {@code older} useless in a replay history. */
    public boolean supersedes(SessionCommand older) {
        return replayed && !dependsOnSessionState && variables.containsAll(older.variables);
    }
}
