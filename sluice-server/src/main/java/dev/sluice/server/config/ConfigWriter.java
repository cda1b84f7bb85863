package dev.sluice.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.sluice.server.net.NodeTls;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.time.Duration;

/**
 * Writes a running configuration back as YAML ({@code --persist}, {@code ?persist=true}), in the
 * shape of {@code examples/sluice.yaml}, so that {@link ConfigLoader#parse} reads back the same
 * {@link SluiceConfig}. Endpoints are written whole (every setting, as DescribeDBProxyEndpoint
 * shows them); the monitor, limits and tls sections, and a node's capacity and TLS, only where they differ from
 * the defaults, so that a file that never mentioned {@code io-threads} does not suddenly pin this
 * machine's CPU count.
 *
 * <p>The file is replaced atomically — a temporary file in the same directory, flushed to disk,
 * then renamed over the old one — so that a crash mid-write leaves either the old file or the new
 * one, never half of each: the next start must find a configuration it can read. Comments of the
 * original file are not kept (the header says so).
 */
public final class ConfigWriter {
    private static final String HEADER = "# Written by Sluice from its running configuration (--persist).\n"
            + "# Comments of the previous file are not kept; examples/sluice.yaml documents every key.\n";
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Quotes every string that YAML would read as something else (a number, a boolean, a null …). */
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build());
    private static final Duration DEFAULT_MONITOR_TIMEOUT = Duration.ofSeconds(1);
    private static final long KIB = 1024;
    private static final int DEFAULT_CAPACITY = 1;

    private ConfigWriter() {
    }

    /** Replaces {@code file} with {@code config}, atomically; a symbolic link is followed, not replaced. */
    public static void write(SluiceConfig config, Path file) throws IOException {
        Path target = Files.exists(file) ? file.toRealPath() : file.toAbsolutePath();
        Path dir = target.getParent();
        // Created owner-only: the file holds passwords. An existing file's permissions are carried over.
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(toYaml(config).getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            copyPermissions(target, tmp);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The configuration as the YAML text {@link #write} puts in the file. */
    public static String toYaml(SluiceConfig config) {
        ObjectNode root = JSON.objectNode();
        config.zone().ifPresent(z -> root.put("zone", z));
        root.set("monitor", monitor(config.monitor()));
        putShared(root, config);
        ObjectNode admin = root.putObject("admin");
        admin.put("listen", config.admin().listen().toString());
        putSecret(admin, "token", config.admin().token());
        if (!config.users().isEmpty()) {
            ArrayNode users = root.putArray("users");
            for (UserConfig u : config.users()) {
                ObjectNode o = users.addObject().put("user", u.user());
                putSecret(o, "password", u.password());
                if (u.fullAuth()) {
                    o.put("full-auth", true);
                }
            }
        }
        config.replication().ifPresent(r -> putSecret(root.putObject("replication").put("user", r.user()), "password",
                r.password()));
        config.cluster().ifPresent(c -> {
            ObjectNode o = root.putObject("cluster");
            c.etcd().forEach(u -> o.withArray("etcd").add(u.toString()));
            o.put("name", c.name()).put("prefix", c.prefix());
            c.tls().ifPresent(t -> {
                ObjectNode tls = o.putObject("tls").put("ca", t.ca());
                t.cert().ifPresent(cert -> tls.put("cert", cert));
                t.key().ifPresent(key -> tls.put("key", key));
            });
            c.login().ifPresent(l -> putSecret(o.put("user", l.user()), "password", l.password()));
        });
        ObjectNode limits = limits(config.limits());
        if (!limits.isEmpty()) {
            root.set("limits", limits);
        }
        if (!config.tls().equals(TlsConfig.DEFAULT)) {
            root.set("tls", tls(config.tls()));
        }
        if (!config.process().shutdownTimeout().equals(ProcessConfig.DEFAULT_SHUTDOWN_TIMEOUT)) {
            root.put("shutdown-timeout", EndpointSettings.duration(config.process().shutdownTimeout()));
        }
        if (config.process().logFormat() != ProcessConfig.LogFormat.TEXT) {
            root.put("log-format", config.process().logFormat().configName());
        }
        if (!config.process().queryDigests()) {
            root.put("query-digests", false);
        }
        try {
            return HEADER + YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a configuration tree always serializes", e);
        }
    }

    /**
     * The part of {@code config} that cluster mode shares through etcd (nodes and endpoints), as
     * YAML that {@link ConfigLoader#withShared} reads back.
     */
    public static String sharedYaml(SluiceConfig config) {
        return sharedYaml(new SharedConfig(config, java.util.List.of()));
    }

    /** The same, with the nodes being drained ({@code draining:}, left out when there are none). */
    public static String sharedYaml(SharedConfig shared) {
        ObjectNode root = JSON.objectNode();
        putShared(root, shared.config());
        if (!shared.draining().isEmpty()) {
            shared.draining().forEach(n -> root.withArray("draining").add(n));
        }
        shared.formerPrimary().ifPresent(f -> root.putObject("former-primary").put("node", f.node())
                .put("promoted-at", f.promotedAt()));
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a configuration tree always serializes", e);
        }
    }

    private static void putShared(ObjectNode root, SluiceConfig config) {
        ArrayNode nodes = root.putArray("nodes");
        for (NodeConfig n : config.nodes()) {
            ObjectNode o = nodes.addObject();
            o.put("name", n.name());
            o.put("address", n.address().toString());
            o.put("role", n.role() == NodeConfig.Role.PRIMARY ? "primary" : "replica");
            n.zone().ifPresent(z -> o.put("zone", z));
            if (n.capacity() != DEFAULT_CAPACITY) {
                o.put("capacity", n.capacity());
            }
            if (n.tls() != NodeTls.PREFERRED) {
                o.put("tls", n.tls().configName());
            }
            n.tlsCa().ifPresent(ca -> o.put("tls-ca", ca));
        }
        ArrayNode endpoints = root.putArray("endpoints");
        for (EndpointConfig e : config.endpoints()) {
            endpoints.add(EndpointSettings.toJson(e));
        }
    }

    /** A secret is written as it was given: the reference to it, never the value it stands for. */
    private static void putSecret(ObjectNode o, String key, Secret secret) {
        switch (secret.origin()) {
            case LITERAL -> o.put(key, secret.value());
            case ENVIRONMENT -> o.put(key, "${" + secret.source() + "}");
            case FILE -> o.put(key + "-file", secret.source());
        }
    }

    private static ObjectNode monitor(MonitorConfig m) {
        ObjectNode o = JSON.objectNode();
        o.put("user", m.user());
        putSecret(o, "password", m.password());
        o.put("interval", EndpointSettings.duration(m.interval()));
        if (!m.connectTimeout().equals(DEFAULT_MONITOR_TIMEOUT)) {
            o.put("connect-timeout", EndpointSettings.duration(m.connectTimeout()));
        }
        if (!m.queryTimeout().equals(DEFAULT_MONITOR_TIMEOUT)) {
            o.put("query-timeout", EndpointSettings.duration(m.queryTimeout()));
        }
        if (m.downAfter() != MonitorConfig.DEFAULT_DOWN_AFTER) {
            o.put("down-after", m.downAfter());
        }
        if (!m.switchoverTimeout().equals(MonitorConfig.DEFAULT_SWITCHOVER_TIMEOUT)) {
            o.put("switchover-timeout", EndpointSettings.duration(m.switchoverTimeout()));
        }
        if (m.autoFailover()) {
            o.put("failover", "auto");
        }
        if (m.failoverAfter() != MonitorConfig.DEFAULT_FAILOVER_AFTER) {
            o.put("failover-after", m.failoverAfter());
        }
        return o;
    }

    private static ObjectNode limits(LimitsConfig l) {
        ObjectNode o = JSON.objectNode();
        if (!l.handshakeTimeout().equals(LimitsConfig.DEFAULT_HANDSHAKE_TIMEOUT)) {
            o.put("handshake-timeout", EndpointSettings.duration(l.handshakeTimeout()));
        }
        if (!l.idleTimeout().equals(LimitsConfig.DEFAULT_IDLE_TIMEOUT)) {
            o.put("idle-timeout", EndpointSettings.duration(l.idleTimeout()));
        }
        if (l.maxPacketSize() != LimitsConfig.DEFAULT_MAX_PACKET_SIZE) {
            o.put("max-packet-size", size(l.maxPacketSize()));
        }
        if (!l.backendConnectTimeout().equals(LimitsConfig.DEFAULT_BACKEND_CONNECT_TIMEOUT)) {
            o.put("backend-connect-timeout", EndpointSettings.duration(l.backendConnectTimeout()));
        }
        if (l.ioThreads() != Runtime.getRuntime().availableProcessors()) {
            o.put("io-threads", l.ioThreads());
        }
        if (l.sessionMemory() != LimitsConfig.DEFAULT_SESSION_MEMORY) {
            o.put("session-memory", size(l.sessionMemory()));
        }
        LoginFailureLimit f = l.loginFailures();
        if (!f.equals(LoginFailureLimit.DEFAULT)) {
            o.putObject("login-failures").put("max", f.max())
                    .put("window", EndpointSettings.duration(f.window()))
                    .put("block", EndpointSettings.duration(f.block()));
        }
        return o;
    }

    private static ObjectNode tls(TlsConfig t) {
        ObjectNode o = JSON.objectNode();
        o.put("enabled", t.enabled());
        t.cert().ifPresent(c -> o.put("cert", c));
        t.key().ifPresent(k -> o.put("key", k));
        t.selfSignedDir().ifPresent(d -> o.put("self-signed-dir", d));
        return o;
    }

    /** A size in the largest exact binary unit ({@code 16m}), as {@link ConfigValues#size} reads it. */
    static String size(long bytes) {
        String[] units = {"g", "m", "k"};
        long[] factors = {KIB * KIB * KIB, KIB * KIB, KIB};
        for (int i = 0; i < units.length; i++) {
            if (bytes > 0 && bytes % factors[i] == 0) {
                return bytes / factors[i] + units[i];
            }
        }
        return Long.toString(bytes);
    }

    private static void copyPermissions(Path from, Path to) throws IOException {
        if (!Files.exists(from)) {
            return;
        }
        PosixFileAttributeView source = Files.getFileAttributeView(from, PosixFileAttributeView.class);
        PosixFileAttributeView dest = Files.getFileAttributeView(to, PosixFileAttributeView.class);
        if (source != null && dest != null) {
            dest.setPermissions(source.readAttributes().permissions());
        }
    }
}
