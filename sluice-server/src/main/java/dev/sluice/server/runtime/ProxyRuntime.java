package dev.sluice.server.runtime;

import dev.sluice.server.auth.Authenticator;
import dev.sluice.server.backend.BackendConnector;
import dev.sluice.server.config.NodeConfig;
import dev.sluice.server.config.SluiceConfig;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every session of the proxy shares: the backend connector, the accounts, the nodes and
 * how Sluice presents itself. Thread-safe; fields that change are volatile snapshots.
 */
public final class ProxyRuntime {
    private final BackendConnector connector;
    private final Authenticator authenticator;
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile SluiceConfig config;
    private volatile List<NodeRef> nodes;
    private volatile ServerIdentity identity = ServerIdentity.FALLBACK;

    public ProxyRuntime(SluiceConfig config, BackendConnector connector, Authenticator authenticator) {
        this.config = config;
        this.connector = connector;
        this.authenticator = authenticator;
        this.nodes = nodeRefs(config);
    }

    private static List<NodeRef> nodeRefs(SluiceConfig config) {
        List<NodeConfig> n = config.nodes();
        return java.util.stream.IntStream.range(0, n.size())
                .mapToObj(i -> new NodeRef(i, n.get(i).name(), n.get(i).address())).toList();
    }

    public SluiceConfig config() {
        return config;
    }

    public BackendConnector connector() {
        return connector;
    }

    public Authenticator authenticator() {
        return authenticator;
    }

    public long nextConnectionId() {
        return connectionIds.incrementAndGet();
    }

    public ServerIdentity identity() {
        return identity;
    }

    public void identity(ServerIdentity id) {
        this.identity = id;
    }

    public NodeRef primary() {
        String name = config.primary().orElseThrow().name();
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    public Optional<NodeRef> node(int id) {
        return nodes.stream().filter(n -> n.id() == id).findFirst();
    }

    public Optional<NodeRef> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }
}
