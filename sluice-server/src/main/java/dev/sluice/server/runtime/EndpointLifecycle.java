package dev.sluice.server.runtime;

import dev.sluice.server.config.EndpointConfig;

/** Starts and stops endpoint listeners (implemented by the server, which owns the sockets). */
public interface EndpointLifecycle {
    /** Binds a new endpoint; throws when its address cannot be bound. */
    EndpointRuntime start(EndpointConfig config);

    /** Stops accepting on an endpoint; its sessions finish on their own. */
    void stop(String name);
}
