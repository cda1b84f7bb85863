package dev.sluice.server.frontend;

import dev.sluice.protocol.stream.ResponseTracker;
import dev.sluice.server.backend.BackendConnection;

/**
 * The listener of a {@code SET GLOBAL}: once it succeeded, pooled connections that took their
 * session values before it are reset before they serve a session (BEHAVIOUR §7).
 */
final class GlobalsChangeListener extends ForwardingListener {
    private final CommandListener own;
    private final Runnable changed;

    GlobalsChangeListener(CommandListener own, Runnable changed) {
        this.own = own;
        this.changed = changed;
    }

    @Override
    protected CommandListener delegate() {
        return own;
    }

    @Override
    public void onComplete(BackendConnection backend, ResponseTracker tracker) {
        if (!tracker.endedWithError()) {
            changed.run();
        }
        super.onComplete(backend, tracker);
    }
}
