package dev.sluice.server.switchover;

import dev.sluice.server.runtime.SessionStanding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the primary may move now, judged from where every session stands while new work for it
 * is held (BEHAVIOUR §10): once no session has a transaction open there, a command running there, or
 * something that cannot move, it may; until {@code switchover-timeout} the switchover waits; past
 * it, the switchover is called off, naming the sessions that kept it. Pure.
 */
public final class DrainVerdict {
    /** Sessions named in a message; the rest are counted. */
    static final int NAMED_SESSIONS = 5;

    private DrainVerdict() {
    }

    public sealed interface Verdict {
    }

    /** Nothing holds the primary: it may move. */
    public record Proceed() implements Verdict {
    }

    /** Sessions still hold it, and there is time left. */
    public record Wait(int sessions) implements Verdict {
    }

    /** Sessions still hold it and the time is up. */
    public record CallOff(String reason) implements Verdict {
    }

    public static Verdict judge(List<SessionStanding> standings, Duration elapsed, Duration timeout) {
        List<SessionStanding> holding = standings.stream().filter(s -> !s.free()).toList();
        if (holding.isEmpty()) {
            return new Proceed();
        }
        if (elapsed.compareTo(timeout) < 0) {
            return new Wait(holding.size());
        }
        List<String> named = new ArrayList<>();
        for (SessionStanding s : holding.subList(0, Math.min(NAMED_SESSIONS, holding.size()))) {
            named.add("session " + s.connectionId() + " " + what(s));
        }
        String more = holding.size() > NAMED_SESSIONS ? " and " + (holding.size() - NAMED_SESSIONS) + " more" : "";
        return new CallOff(holding.size() + " session(s) still used the primary after " + timeout.toMillis()
                + " ms (switchover-timeout): " + String.join("; ", named) + more
                + ". End them (or KILL the sessions) and try again");
    }

    private static String what(SessionStanding s) {
        if (!s.unmovable().isEmpty()) {
            return "holds " + String.join(", ", s.unmovable()) + ", which cannot move to another node";
        }
        if (s.transactionOpen()) {
            return "has a transaction open";
        }
        return "has a statement running";
    }
}
