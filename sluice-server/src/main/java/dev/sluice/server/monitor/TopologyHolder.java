package dev.sluice.server.monitor;

import dev.sluice.routing.topology.Topology;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The current {@link Topology} snapshot. Writers (the monitor, configuration changes) replace it
 * atomically; sessions read it once per statement and see either the old or the new one, never
 * a mixture. Listeners hear of every change (endpoints recompute their readable sets), newest
 * last.
 *
 * <p>The monitor's checks of different nodes end on different event loops, so two updates can
 * replace the snapshot in one order and reach their listeners in the other. Had each update told
 * the listeners of its own snapshot, the older could arrive last, and an endpoint would keep
 * routing on it until the next change, which in a quiet cluster may never come (replicas whose
 * replication broke staying readable, say). So deliveries are serialized, and each one hands
 * the listeners the newest snapshot: an update whose snapshot another delivery already carried
 * has nothing left to do. Listeners may see several changes at once, never one undone.
 */
public final class TopologyHolder {
    private final AtomicReference<Topology> current;
    private final List<Consumer<Topology>> listeners = new CopyOnWriteArrayList<>();
    private final Object deliveryLock = new Object();
    /** The snapshot the listeners were last handed; guarded by {@link #deliveryLock}. */
    private Topology delivered;

    public TopologyHolder(Topology initial) {
        this.current = new AtomicReference<>(initial);
        this.delivered = initial;
    }

    public Topology current() {
        return current.get();
    }

    /**
     * Applies {@code change} atomically (retrying on a concurrent change) and tells the listeners.
     * On return they have been handed this snapshot or a newer one.
     */
    public Topology update(UnaryOperator<Topology> change) {
        Topology before;
        Topology after;
        do {
            before = current.get();
            after = change.apply(before);
        } while (!current.compareAndSet(before, after));
        if (after != before) {
            deliverNewest();
        }
        return after;
    }

    /**
     * A listener that updates the topology itself delivers the newer snapshot from inside this
     * one (the lock is reentrant); this delivery then stops rather than hand the listeners after
     * it an older snapshot than they already have.
     */
    private void deliverNewest() {
        synchronized (deliveryLock) {
            Topology now;
            while ((now = current.get()) != delivered) {
                delivered = now;
                for (Consumer<Topology> l : listeners) {
                    if (delivered != now) {
                        break;
                    }
                    l.accept(now);
                }
            }
        }
    }

    public void addListener(Consumer<Topology> listener) {
        listeners.add(listener);
    }
}
