package dev.sluice.server.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Holds commands bound for the primary while a switchover moves it (BEHAVIOUR §10): a session
 * whose command would start a transaction or an autocommit write there parks it here, and it runs
 * — on the new primary, or on the old one if the switchover is called off — when the hold is
 * released. Commands wait; none is refused. Reads on replicas are not held.
 *
 * <p>Thread-safe: sessions park from their event loops, the switchover holds and releases from its
 * own thread. A parked command resumes on its session's loop, in the order it was parked there.
 */
public final class PrimaryHold {
    private record Parked(Executor loop, Runnable resume) {
    }

    private volatile boolean holding;
    /** Guarded by {@code this}. */
    private final List<Parked> parked = new ArrayList<>();

    /** Whether commands to the primary are being held now (one volatile read: the statement path asks it). */
    public boolean holding() {
        return holding;
    }

    /** From now on, sessions park their commands to the primary. */
    public synchronized void hold() {
        holding = true;
    }

    /**
     * Parks {@code resume} until the hold is released; with no hold in force it is queued on
     * {@code loop} at once (never run inline: the caller is in the middle of a command).
     */
    public void park(Executor loop, Runnable resume) {
        synchronized (this) {
            if (holding) {
                parked.add(new Parked(loop, resume));
                return;
            }
        }
        loop.execute(resume);
    }

    /** Ends the hold: every parked command resumes on its session's loop. */
    public void release() {
        List<Parked> resumed;
        synchronized (this) {
            holding = false;
            resumed = List.copyOf(parked);
            parked.clear();
        }
        for (Parked p : resumed) {
            p.loop().execute(p.resume());
        }
    }

    /** Commands parked now. */
    public synchronized int parked() {
        return parked.size();
    }
}
