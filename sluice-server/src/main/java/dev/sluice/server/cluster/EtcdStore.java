package dev.sluice.server.cluster;

import dev.sluice.server.config.ClusterConfig;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's keys in etcd, through jetcd: the shared configuration (read, seeded, swapped on its
 * revision, watched), the instances' registrations under a lease, and the leader key. Every call is bounded by
 * {@link #CALL_TIMEOUT}: jetcd retries an unreachable etcd by itself, and a caller that waited for
 * that would hang an admin request or the renewal of the lease.
 *
 * <p>With {@code cluster.tls} the client speaks TLS with the given certificates, and with
 * {@code cluster.user} it logs in to etcd (BEHAVIOUR §11). A call etcd refuses for the login or the
 * user's permissions fails with {@link EtcdRefusedException}, saying what to check; a TLS refusal
 * shows in jetcd only as a call without an answer, so {@link #checkTls()} looks for one first.
 */
final class EtcdStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdStore.class);
    /** How long one etcd call may take before etcd counts as unreachable. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
    /**
     * The same for the calls made while the instance starts: the client's first call also loads its
     * classes and opens the connection, which takes seconds on a loaded machine.
     */
    static final Duration FIRST_CALL_TIMEOUT = Duration.ofSeconds(15);

    private final ClusterConfig cluster;
    private final Optional<EtcdTlsContext> tls;
    private final Client client;
    private final KV kv;
    private volatile Duration timeout = FIRST_CALL_TIMEOUT;

    /**
     * @param configDirectory where relative {@code cluster.tls} file names are taken from; a file that
     *     cannot be used stops the start ({@link dev.sluice.server.config.ConfigException})
     */
    EtcdStore(ClusterConfig cluster, Optional<Path> configDirectory) {
        this.cluster = cluster;
        this.tls = cluster.tls().map(t -> EtcdTlsContext.load(t, configDirectory));
        ClientBuilder b = Client.builder().endpoints(cluster.etcd());
        tls.ifPresent(t -> b.sslContext(t.grpc()));
        cluster.login().ifPresent(l -> b.user(bytes(l.user())).password(bytes(l.password().value())));
        this.client = b.build();
        this.kv = client.getKVClient();
    }

    /**
     * Connects to every etcd URL with the instance's certificates, when it uses TLS, and throws when
     * etcd refuses them everywhere it answers: a wrong CA, a missing or unknown client certificate,
     * a certificate not made for the URL's host. Nothing when TLS is not used, when one URL accepts
     * them (the others are logged), or when none answers (an outage: the first call tells).
     */
    void checkTls() throws EtcdRefusedException {
        if (tls.isEmpty()) {
            return;
        }
        EtcdHandshake handshake = tls.get().checker();
        List<String> refusals = new ArrayList<>();
        boolean accepted = false;
        for (URI url : cluster.etcd()) {
            EtcdHandshake.Outcome o = handshake.check(url, CALL_TIMEOUT);
            if (o instanceof EtcdHandshake.Outcome.Accepted) {
                accepted = true;
            } else if (o instanceof EtcdHandshake.Outcome.Refused r) {
                refusals.add(r.why());
            }
        }
        if (refusals.isEmpty()) {
            return;
        }
        if (!accepted) {
            throw new EtcdRefusedException(String.join("; ", refusals));
        }
        LOG.warn("cluster '{}': {}; using the etcd URLs that accept this instance", cluster.prefix(),
                String.join("; ", refusals));
    }

    /** From now on, calls are bounded by {@link #CALL_TIMEOUT}. */
    void started() {
        timeout = CALL_TIMEOUT;
    }

    /** The shared configuration, if etcd holds one. */
    Optional<StoredConfig> readConfig() throws EtcdUnreachableException {
        GetResponse r = await(kv.get(bytes(cluster.configKey())));
        return r.getKvs().stream().findFirst().map(kv -> new StoredConfig(text(kv.getValue()), kv.getModRevision()));
    }

    /** Writes {@code yaml} only if the key is still absent; true when this call wrote it. */
    boolean seed(String yaml) throws EtcdUnreachableException {
        ByteSequence key = bytes(cluster.configKey());
        TxnResponse r = await(kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
                .Then(Op.put(key, bytes(yaml), PutOption.DEFAULT)).commit());
        return r.isSucceeded();
    }

    /** Writes {@code yaml} only if the configuration is still at {@code readRevision}. */
    ChangeOutcome swap(String yaml, long readRevision) {
        ByteSequence key = bytes(cluster.configKey());
        try {
            TxnResponse r = await(kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(readRevision)))
                    .Then(Op.put(key, bytes(yaml), PutOption.DEFAULT)).commit());
            return ChangeOutcome.ofTransaction(r.isSucceeded(), r.getHeader().getRevision(), readRevision);
        } catch (EtcdUnreachableException e) {
            return new ChangeOutcome.Unreachable(e.getMessage());
        }
    }

    /** Calls {@code onChange} with every later write of the shared configuration, from {@code afterRevision}. */
    Watch.Watcher watchConfig(long afterRevision, Consumer<StoredConfig> onChange, Consumer<Throwable> onError) {
        WatchOption from = WatchOption.builder().withRevision(afterRevision + 1).build();
        return client.getWatchClient().watch(bytes(cluster.configKey()), from, Watch.listener(response -> {
            for (WatchEvent e : response.getEvents()) {
                if (e.getEventType() == WatchEvent.EventType.PUT) {
                    onChange.accept(new StoredConfig(text(e.getKeyValue().getValue()),
                            e.getKeyValue().getModRevision()));
                }
            }
        }, onError));
    }

    /** A new lease of {@code ttl}; its id. */
    long grantLease(Duration ttl) throws EtcdUnreachableException {
        return await(client.getLeaseClient().grant(ttl.toSeconds())).getID();
    }

    /** Renews {@code lease}; false when etcd no longer knows it (it expired). */
    boolean renew(long lease) throws EtcdUnreachableException {
        try {
            return await(client.getLeaseClient().keepAliveOnce(lease)).getTTL() > 0;
        } catch (EtcdUnreachableException e) {
            if (e.getMessage().contains("lease not found")) {
                return false;
            }
            throw e;
        }
    }

    /** Puts this instance's registration under {@code lease}. */
    void register(String json, long lease) throws EtcdUnreachableException {
        await(kv.put(bytes(cluster.instanceKey()), bytes(json), PutOption.builder().withLeaseId(lease).build()));
    }

    /**
     * Takes the leader key for {@code name} under {@code lease} if no one holds it, in one
     * transaction (create revision 0: absent); the holder either way, empty only if the key vanished
     * in between.
     */
    Optional<Leadership.LeaderKey> campaign(String name, long lease) throws EtcdUnreachableException {
        ByteSequence key = bytes(cluster.leaderKey());
        TxnResponse r = await(kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, bytes(name), PutOption.builder().withLeaseId(lease).build()))
                .Else(Op.get(key, GetOption.DEFAULT)).commit());
        if (r.isSucceeded()) {
            return Optional.of(new Leadership.LeaderKey(name, lease));
        }
        return r.getGetResponses().stream().flatMap(g -> g.getKvs().stream()).findFirst()
                .map(k -> new Leadership.LeaderKey(text(k.getValue()), k.getLease()));
    }

    /** Every registration under the prefix, as stored. */
    List<String> registrations() throws EtcdUnreachableException {
        GetResponse r = await(kv.get(bytes(cluster.instancesPrefix()), GetOption.builder().isPrefix(true).build()));
        List<String> out = new ArrayList<>();
        for (KeyValue k : r.getKvs()) {
            out.add(text(k.getValue()));
        }
        return out;
    }

    /** Ends {@code lease} now, so this instance leaves the registrations at once. */
    void revoke(long lease) throws EtcdUnreachableException {
        await(client.getLeaseClient().revoke(lease));
    }

    @Override
    public void close() {
        client.close();
    }

    private <T> T await(CompletableFuture<T> call) throws EtcdUnreachableException {
        Duration limit = timeout;
        try {
            return call.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new EtcdUnreachableException("no answer within " + limit.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            Optional<String> refused = EtcdRefusal.of(cause, cluster.login().map(l -> l.user()), cluster.prefix());
            if (refused.isPresent()) {
                throw new EtcdRefusedException(refused.get());
            }
            throw new EtcdUnreachableException(cause.getMessage() == null ? cause.toString() : cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EtcdUnreachableException("interrupted");
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String text(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
