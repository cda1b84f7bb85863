package dev.sluice.routing.session;

import dev.sluice.routing.sql.SessionCommand;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The session commands a backend opened later must replay, in order, so that every backend of a
 * client connection has the same session state (BEHAVIOUR §3).
 *
 * <p>De-duplication keeps the history proportional to the state, not to the traffic: a command
 * that sets a superset of an older command's variables, without reading any variable, replaces it
 * (the last USE, the last SET NAMES, the last value of each variable). A command that reads
 * variables ({@code SET sql_mode = CONCAT(@@sql_mode, …)}) builds on its predecessors and replaces
 * nothing. Bounded: past {@link #MAX_COMMANDS} commands or {@link #MAX_CHARS} characters the
 * history {@link #overflowed() overflows}; a new backend can then no longer be brought to the same
 * state, so the session stays on the primary (the router pins it).
 */
final class SessionHistory {

    /** More distinct session commands than any real application issues. */
    static final int MAX_COMMANDS = 256;
    /** Characters of SQL kept for replay. */
    static final int MAX_CHARS = 256 * 1024;

    private final List<SessionCommand> commands = new ArrayList<>();
    private int chars;
    private boolean overflowed;

    void record(SessionCommand command) {
        if (!command.replayed() || overflowed) {
            return;
        }
        commands.removeIf(older -> {
            boolean gone = command.supersedes(older);
            if (gone) {
                chars -= older.sql().length();
            }
            return gone;
        });
        commands.add(command);
        chars += command.sql().length();
        if (commands.size() > MAX_COMMANDS || chars > MAX_CHARS) {
            overflowed = true;
        }
    }

    /** The commands to replay, oldest first. */
    List<SessionCommand> commands() {
        return Collections.unmodifiableList(new ArrayList<>(commands));
    }

    boolean overflowed() {
        return overflowed;
    }

    void clear() {
        commands.clear();
        chars = 0;
        overflowed = false;
    }
}
