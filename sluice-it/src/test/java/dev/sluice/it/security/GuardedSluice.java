package dev.sluice.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.support.Bystander;
import dev.sluice.it.support.NettyLeaks;
import dev.sluice.it.support.SandboxCluster;
import dev.sluice.it.support.SluiceHarness;

/**
 * What every security test runs against: Sluice on the sandbox with the test's configuration, and
 * a well-behaved session ({@link Bystander}) running alongside the abuse, which must never see an
 * error. Closing it stops Sluice and checks that Netty reports no leaked buffer (paranoid
 * detection, set by the sluice-it pom).
 */
final class GuardedSluice implements AutoCloseable {
    private final SandboxCluster cluster;
    private final SluiceHarness sluice;
    private final Bystander bystander;

    private GuardedSluice(SandboxCluster cluster, SluiceHarness sluice, Bystander bystander) {
        this.cluster = cluster;
        this.sluice = sluice;
        this.bystander = bystander;
    }

    /** Starts Sluice with {@code yaml} (an endpoint {@code rw} is expected) and the bystander on it. */
    static GuardedSluice start(String yaml) {
        return start(yaml, "");
    }

    /** As {@link #start(String)}, with {@code nodeKeys} added to every node of the configuration. */
    static GuardedSluice start(String yaml, String nodeKeys) {
        SandboxCluster cluster = SandboxCluster.get();
        SluiceHarness sluice = SluiceHarness.start(cluster, yaml, nodeKeys);
        try {
            return new GuardedSluice(cluster, sluice, Bystander.start(sluice.mariadbUrl("rw", "socketTimeout=60000")));
        } catch (RuntimeException | Error e) {
            sluice.close();
            throw e;
        }
    }

    SandboxCluster cluster() {
        return cluster;
    }

    SluiceHarness sluice() {
        return sluice;
    }

    int port(String endpoint) {
        return sluice.port(endpoint);
    }

    /** No error so far for the bystander, and it goes on answering. */
    void assertBystanderUnaffected() {
        bystander.assertProgressing();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            bystander.close();
        } finally {
            sluice.close();
        }
        assertThat(NettyLeaks.collect()).as("Netty buffers leaked").isEmpty();
    }
}
