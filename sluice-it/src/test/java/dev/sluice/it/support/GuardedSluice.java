package dev.sluice.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Objects;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test that abuses Sluice runs against: Sluice on the sandbox with the test's
 * configuration, and a well-behaved session ({@link Bystander}) running alongside the abuse, which
 * must never see an error. Registered on a static field, it starts both before the class's tests,
 * checks after each test that the bystander saw no error and still gets answers, and at the end
 * stops Sluice and checks that Netty reports no leaked buffer (paranoid detection, set by the
 * sluice-it pom).
 *
 * <pre>
 * &#64;RegisterExtension
 * static final GuardedSluice sluice = GuardedSluice.with("""
 *         endpoints:
 *           - {name: rw, listen: 127.0.0.1:0, mode: read-write}
 *         """);
 * </pre>
 *
 * The configuration must have an endpoint {@code rw}: the bystander reads through it. A class that
 * needs sandbox state Sluice must find at start (an account) creates it in {@link #beforeStart} and
 * removes it in {@link #afterStop}, which runs even when the start failed.
 */
public final class GuardedSluice implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private static final String BYSTANDER_OPTIONS = "socketTimeout=60000";

    private final String yaml;
    private final String nodeKeys;
    private final Consumer<SandboxCluster> beforeStart;
    private final Consumer<SandboxCluster> afterStop;
    private SandboxCluster cluster;
    private SluiceHarness sluice;
    private Bystander bystander;

    private GuardedSluice(String yaml, String nodeKeys, Consumer<SandboxCluster> beforeStart,
            Consumer<SandboxCluster> afterStop) {
        this.yaml = Objects.requireNonNull(yaml);
        this.nodeKeys = Objects.requireNonNull(nodeKeys);
        this.beforeStart = Objects.requireNonNull(beforeStart);
        this.afterStop = Objects.requireNonNull(afterStop);
    }

    /** Sluice with {@code yaml} (an endpoint {@code rw} is expected) and the bystander on it. */
    public static GuardedSluice with(String yaml) {
        return new GuardedSluice(yaml, "", c -> { }, c -> { });
    }

    /** The same, with {@code keys} added to every node of the configuration. */
    public GuardedSluice nodeKeys(String keys) {
        return new GuardedSluice(yaml, keys, beforeStart, afterStop);
    }

    /** Runs {@code setup} on the sandbox before Sluice starts. */
    public GuardedSluice beforeStart(Consumer<SandboxCluster> setup) {
        return new GuardedSluice(yaml, nodeKeys, setup, afterStop);
    }

    /** Runs {@code cleanup} on the sandbox once Sluice stopped, whether or not it started. */
    public GuardedSluice afterStop(Consumer<SandboxCluster> cleanup) {
        return new GuardedSluice(yaml, nodeKeys, beforeStart, cleanup);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = SandboxCluster.get();
        beforeStart.accept(cluster);
        sluice = SluiceHarness.start(cluster, yaml, nodeKeys);
        try {
            bystander = Bystander.start(sluice.mariadbUrl("rw", BYSTANDER_OPTIONS));
        } catch (RuntimeException | Error e) {
            sluice.close();
            sluice = null;
            throw e;
        }
    }

    /** No error so far for the bystander, and it goes on answering. */
    @Override
    public void afterEach(ExtensionContext context) {
        assertBystanderUnaffected();
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        try {
            if (sluice != null) {
                try {
                    bystander.close();
                } finally {
                    sluice.close();
                }
                assertThat(NettyLeaks.collect()).as("Netty buffers leaked").isEmpty();
            }
        } finally {
            sluice = null;
            bystander = null;
            if (cluster != null) {
                afterStop.accept(cluster);
            }
        }
    }

    /** No error so far for the bystander, and it goes on answering; tests call it mid-way too. */
    public void assertBystanderUnaffected() {
        bystander.assertProgressing();
    }

    public SandboxCluster cluster() {
        return cluster;
    }

    /** The running Sluice. */
    public SluiceHarness sluice() {
        return sluice;
    }

    public int port(String endpoint) {
        return sluice.port(endpoint);
    }
}
