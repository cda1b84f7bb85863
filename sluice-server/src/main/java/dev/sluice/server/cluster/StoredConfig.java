package dev.sluice.server.cluster;

/**
 * The shared configuration as etcd holds it.
 *
 * @param yaml the nodes and endpoints, as {@link dev.sluice.server.config.ConfigWriter#sharedYaml} writes them
 * @param modRevision the etcd revision that last wrote it: what a compare-and-swap compares
 */
public record StoredConfig(String yaml, long modRevision) {
}
