package dev.sluice.it.support;

/**
 * One MariaDB server of the sandbox cluster.
 *
 * <p>Node 0 is the primary ({@code primary}), nodes 1..N the replicas ({@code ro1}, {@code ro2},
 * ...). Node {@code k} listens on {@code 127.0.0.1:basePort + k} and has {@code server_id = k + 1},
 * so a test can tell which node answered with {@code SELECT @@server_id}.
 *
 * @param index position in the cluster, 0 for the primary
 * @param name the node's name in Sluice configurations and in {@code sluice sandbox status}
 * @param port TCP port on 127.0.0.1
 * @param serverId the node's {@code @@server_id}
 */
public record SandboxNode(int index, String name, int port, int serverId) {

    static SandboxNode of(int index, int basePort) {
        return new SandboxNode(index, index == 0 ? "primary" : "ro" + index, basePort + index, index + 1);
    }

    /** Whether this node is the primary of the healthy cluster (node 0). */
    public boolean isPrimary() {
        return index == 0;
    }

    /** {@code host:port}, as in a Sluice configuration's {@code address}. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    @Override
    public String toString() {
        return name + " (" + address() + ", server_id " + serverId + ")";
    }
}
