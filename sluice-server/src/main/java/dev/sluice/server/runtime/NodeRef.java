package dev.sluice.server.runtime;

import dev.sluice.server.net.HostPort;

/** A backend node as a session addresses it: stable id, name, address. */
public record NodeRef(int id, String name, HostPort address) {
}
