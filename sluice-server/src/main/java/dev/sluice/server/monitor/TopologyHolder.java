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
 * a mixture. Listeners hear of every change (endpoints recompute their readable sets).
 */
public final class TopologyHolder {
    private final AtomicReference<Topology> current;
    private final List<Consumer<Topology>> listeners = new CopyOnWriteArrayList<>();

    public TopologyHolder(Topology initial) {
        this.current = new AtomicReference<>(initial);
    }

    public Topology current() {
        return current.get();
    }

    /** Applies {@code change} atomically (retrying on a concurrent change) and tells the listeners. */
    public Topology update(UnaryOperator<Topology> change) {
        Topology before;
        Topology after;
        do {
            before = current.get();
            after = change.apply(before);
        } while (!current.compareAndSet(before, after));
        if (after != before) {
            for (Consumer<Topology> l : listeners) {
                l.accept(after);
            }
        }
        return after;
    }

    public void addListener(Consumer<Topology> listener) {
        listeners.add(listener);
    }
}
