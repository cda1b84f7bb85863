package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.routing.policy.BalancerKind;
import dev.sluice.routing.policy.ConnectionPoolMode;
import dev.sluice.routing.policy.ConsistencyLevel;
import dev.sluice.routing.policy.EndpointMode;
import dev.sluice.routing.policy.EndpointPolicy;
import dev.sluice.routing.policy.PolicyProblem;
import dev.sluice.routing.policy.ReadWeights;
import dev.sluice.routing.topology.NodeRole;
import dev.sluice.routing.topology.Topology;
import dev.sluice.routing.policy.TimeoutAction;
import dev.sluice.server.net.HostPort;
import dev.sluice.server.net.NodeTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the YAML configuration into {@link SluiceConfig}, refusing anything it does not
 * understand: every unknown key and every bad value is reported with its path and what is
 * allowed, so that a typo stops the start instead of silently meaning "default".
 */
public final class ConfigLoader {
    static final int MAX_WEIGHT = 10_000;
    private static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    private static final String[] TOP_LEVEL_KEYS = {"monitor", "nodes", "endpoints", "admin", "users", "limits", "tls",
        "zone", "replication", "shutdown-timeout", "log-format", "query-digests",
        "cluster"};
    /** Where the generated self-signed pair goes by default, in the configuration file's directory. */
    public static final String STATE_DIRECTORY = ".sluice";
    private static final long MAX_SESSION_MEMORY = 1L << 40;
    private static final int MAX_LOGIN_FAILURES = 1_000_000;

    private ConfigLoader() {
    }

    public static SluiceConfig load(Path file) {
        try {
            return parse(Files.readString(file),
                    SecretResolver.ofProcess(Optional.ofNullable(file.toAbsolutePath().getParent())));
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A configuration given as text. File names in it (certificates, keys) are kept as written; the
     * running proxy takes relative ones relative to the configuration file's directory.
     */
    public static SluiceConfig parse(String yaml) {
        return parse(yaml, SecretResolver.ofProcess(Optional.empty()));
    }

    /** A configuration given as text, its secrets read with {@code secrets}. */
    public static SluiceConfig parse(String yaml, SecretResolver secrets) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        } catch (IOException e) {
            throw new ConfigException("the configuration is not valid YAML: " + e.getMessage(), e);
        }
        YamlSection top = new YamlSection("", root);
        for (String section : TOP_LEVEL_KEYS) {
            top.has(section);
        }
        top.rejectUnknownKeys();
        MonitorConfig monitor = monitor(top.sectionOrEmpty("monitor"), secrets);
        List<NodeConfig> nodes = nodes(top);
        LimitsConfig limits = limits(top.sectionOrEmpty("limits"));
        Optional<String> zone = top.text("zone");
        List<EndpointConfig> endpoints = endpoints(top, nodes, zone);
        AdminConfig admin = admin(top.sectionOrEmpty("admin"), secrets);
        List<UserConfig> users = new ArrayList<>();
        for (YamlSection u : top.sectionList("users")) {
            users.add(new UserConfig(u.requiredText("user"), secrets.read(u, "password", ""),
                    u.bool("full-auth", false)));
            u.rejectUnknownKeys();
        }
        TlsConfig tls = tls(top.sectionOrEmpty("tls"));
        Optional<ReplicationAccount> replication = top.section("replication").map(r -> replication(r, secrets));
        Optional<ClusterConfig> cluster = top.section("cluster").map(c -> ClusterConfig.parse(c, secrets));
        return new SluiceConfig(monitor, nodes, endpoints, admin, users, limits, tls, zone, replication, process(top),
                cluster);
    }

    /**
     * {@code local} with the nodes and endpoints of cluster mode's shared configuration
     * ({@code nodes:} and {@code endpoints:} only, as {@link ConfigWriter#sharedYaml} writes them),
     * checked exactly as the same sections of a file are.
     */
    public static SluiceConfig withShared(SluiceConfig local, String sharedYaml) {
        return shared(local, sharedYaml).config();
    }

    /** As {@link #withShared}, with the shared list of nodes being drained ({@code draining:}). */
    public static SharedConfig shared(SluiceConfig local, String sharedYaml) {
        return SharedConfigReader.read(local, sharedYaml);
    }

    static List<EndpointConfig> endpoints(YamlSection top, List<NodeConfig> nodes, Optional<String> zone) {
        List<EndpointConfig> endpoints = new ArrayList<>();
        for (YamlSection e : top.sectionList("endpoints")) {
            endpoints.add(endpoint(e, nodes, zone));
        }
        if (endpoints.isEmpty()) {
            throw new ConfigException("endpoints: at least one endpoint is required");
        }
        checkUnique(endpoints.stream().map(EndpointConfig::name).toList(), "endpoints", "name");
        // Port 0 asks the OS for any free port: several endpoints on port 0 get distinct ports, so only
        // fixed ports can clash (tests and ephemeral setups run several endpoints on port 0).
        checkUnique(endpoints.stream().filter(e -> e.listen().port() != 0).map(e -> e.listen().toString()).toList(),
                "endpoints", "listen address");
        for (EndpointConfig e : endpoints) {
            validate(e, nodes);
        }
        return List.copyOf(endpoints);
    }

    private static ProcessConfig process(YamlSection top) {
        return new ProcessConfig(
                top.parsed("shutdown-timeout", ProcessConfig.DEFAULT_SHUTDOWN_TIMEOUT,
                        v -> ConfigValues.duration("shutdown-timeout", v)),
                ProcessConfig.LogFormat.of(top.choice("log-format", ProcessConfig.LogFormat.TEXT.configName(),
                        ProcessConfig.LogFormat.TEXT.configName(), ProcessConfig.LogFormat.JSON.configName())),
                top.bool("query-digests", true));
    }

    private static ReplicationAccount replication(YamlSection s, SecretResolver secrets) {
        ReplicationAccount account = new ReplicationAccount(s.requiredText("user"), secrets.read(s, "password", ""));
        s.rejectUnknownKeys();
        return account;
    }

    private static TlsConfig tls(YamlSection s) {
        boolean enabled = s.bool("enabled", true);
        Optional<String> cert = s.text("cert");
        Optional<String> key = s.text("key");
        Optional<String> dir = s.text("self-signed-dir");
        s.rejectUnknownKeys();
        if (cert.isPresent() != key.isPresent()) {
            throw new ConfigException(s.path() + ": give both cert and key (PEM files), or neither to use a "
                    + "self-signed certificate");
        }
        return new TlsConfig(enabled, cert, key, dir);
    }

    /**
     * A file name from the configuration: relative ones are relative to the configuration file's
     * directory, when the configuration came from a file, else to the working directory.
     */
    public static Path resolve(Optional<Path> configDirectory, String file) {
        Path p = Path.of(file);
        return configDirectory.isPresent() && !p.isAbsolute() ? configDirectory.get().resolve(p).normalize() : p;
    }

    private static MonitorConfig monitor(YamlSection s, SecretResolver secrets) {
        MonitorConfig m = new MonitorConfig(s.text("user").orElse("monitor"), secrets.read(s, "password", ""),
                s.parsed("interval", DEFAULT_INTERVAL, v -> ConfigValues.duration(s.path() + ".interval", v)),
                s.parsed("connect-timeout", Duration.ofSeconds(1),
                        v -> ConfigValues.duration(s.path() + ".connect-timeout", v)),
                s.parsed("query-timeout", Duration.ofSeconds(1),
                        v -> ConfigValues.duration(s.path() + ".query-timeout", v)),
                s.integer("down-after", MonitorConfig.DEFAULT_DOWN_AFTER, 1, MonitorConfig.MAX_DOWN_AFTER),
                s.parsed("switchover-timeout", MonitorConfig.DEFAULT_SWITCHOVER_TIMEOUT,
                        v -> ConfigValues.duration(s.path() + ".switchover-timeout", v)),
                s.choice("failover", "manual", "manual", "auto").equals("auto"),
                s.integer("failover-after", MonitorConfig.DEFAULT_FAILOVER_AFTER, 1, MonitorConfig.MAX_DOWN_AFTER));
        s.rejectUnknownKeys();
        return m;
    }

    /** One node from its YAML (or admin-API JSON) form. */
    public static NodeConfig parseNode(JsonNode json) {
        return node(new YamlSection("node", json));
    }

    private static NodeConfig node(YamlSection n) {
        String name = n.requiredText("name");
        HostPort address = ConfigValues.hostPort(n.path() + ".address", n.requiredText("address"));
        String role = n.choice("role", "replica", "primary", "replica");
        Optional<String> zone = n.text("zone");
        int capacity = n.integer("capacity", 1, 1, MAX_WEIGHT);
        NodeTls tls = nodeTls(n);
        Optional<String> ca = n.text("tls-ca");
        n.rejectUnknownKeys();
        if (tls == NodeTls.OFF && ca.isPresent()) {
            throw new ConfigException(n.path() + ": tls-ca is given but tls is off; remove one of them");
        }
        return new NodeConfig(name, address, role.equals("primary") ? NodeConfig.Role.PRIMARY
                : NodeConfig.Role.REPLICA, zone, capacity, tls, ca);
    }

    /** {@code tls: required | preferred | off}; YAML reads a bare {@code off} as false, which means off too. */
    private static NodeTls nodeTls(YamlSection n) {
        Optional<JsonNode> raw = n.node("tls");
        if (raw.isPresent() && raw.get().isBoolean() && !raw.get().asBoolean()) {
            return NodeTls.OFF;
        }
        return NodeTls.valueOf(n.choice("tls", "preferred", "required", "preferred", "off")
                .toUpperCase(java.util.Locale.ROOT));
    }

    static List<NodeConfig> nodes(YamlSection top) {
        List<NodeConfig> nodes = new ArrayList<>();
        for (YamlSection n : top.sectionList("nodes")) {
            nodes.add(node(n));
        }
        if (nodes.isEmpty()) {
            throw new ConfigException("nodes: at least the primary is required");
        }
        checkUnique(nodes.stream().map(NodeConfig::name).toList(), "nodes", "name");
        long primaries = nodes.stream().filter(n -> n.role() == NodeConfig.Role.PRIMARY).count();
        if (primaries != 1) {
            throw new ConfigException("nodes: exactly one node must have role: primary (found " + primaries + ")");
        }
        return nodes;
    }

    /**
     * One endpoint from its YAML (or admin-API JSON) form. Public so that the admin API validates
     * a changed endpoint exactly as the file would be.
     */
    public static EndpointConfig endpoint(JsonNode json, String path, List<NodeConfig> nodes) {
        return endpoint(json, path, nodes, Optional.empty());
    }

    /** The same, for a Sluice in {@code zone} (the top-level {@code zone:}, which {@code prefer-same-zone} needs). */
    public static EndpointConfig endpoint(JsonNode json, String path, List<NodeConfig> nodes, Optional<String> zone) {
        return endpoint(new YamlSection(path, json), nodes, zone);
    }

    private static EndpointConfig endpoint(YamlSection e, List<NodeConfig> nodes, Optional<String> zone) {
        String name = e.requiredText("name");
        HostPort listen = ConfigValues.hostPort(e.path() + ".listen", e.requiredText("listen"));
        EndpointMode mode = e.named("mode", EndpointMode.READ_WRITE, EndpointMode.class);
        // No list means every node, including nodes added later (a read-only endpoint uses the replicas).
        List<String> names = e.has("nodes") ? e.stringList("nodes") : List.of();
        Set<String> known = new HashSet<>(nodes.stream().map(NodeConfig::name).toList());
        for (String n : names) {
            if (!known.contains(n)) {
                throw new ConfigException(e.path() + ".nodes: unknown node '" + n + "'; configured nodes: "
                        + String.join(", ", known));
            }
        }
        checkUnique(names, e.path() + ".nodes", "node");
        List<String> allow = e.has("allow") ? e.stringList("allow") : List.of("127.0.0.0/8", "::1/128");
        for (String block : allow) {
            if (dev.sluice.server.net.Cidr.parse(block).isEmpty()) {
                throw new ConfigException(e.path() + ".allow: '" + block + "' is not an address block; write e.g. "
                        + "10.0.0.0/8, 192.168.1.20 or fd00::/8");
            }
        }
        List<String> members = names.isEmpty() ? nodes.stream().map(NodeConfig::name).toList() : names;
        EndpointPolicy policy = new EndpointPolicy(name, mode, names, weights(e, members),
                e.named("balancer", BalancerKind.LEAST_ACTIVE, BalancerKind.class),
                e.named("consistency", ConsistencyLevel.EVENTUAL, ConsistencyLevel.class),
                e.parsed("consistency-timeout", EndpointPolicy.DEFAULT_CONSISTENCY_TIMEOUT,
                        v -> ConfigValues.duration(e.path() + ".consistency-timeout", v)),
                e.named("consistency-timeout-action", TimeoutAction.PRIMARY, TimeoutAction.class),
                e.parsed("max-replication-lag", EndpointPolicy.DEFAULT_MAX_REPLICATION_LAG,
                        v -> ConfigValues.duration(e.path() + ".max-replication-lag", v)),
                e.integer("min-reserved-nodes", 0, 0, MAX_WEIGHT),
                e.bool("transaction-splitting", false),
                e.named("connection-pool", ConnectionPoolMode.NONE, ConnectionPoolMode.class),
                allow,
                e.integer("max-connections", EndpointPolicy.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000),
                preferredZone(e, zone));
        boolean requireTls = e.bool("require-tls", false);
        PoolSettings pool = new PoolSettings(
                e.integer("pool-max-connections", PoolSettings.DEFAULTS.maxConnectionsPerNode(), 1, 100_000),
                e.parsed("pool-idle-timeout", PoolSettings.DEFAULTS.idleTimeout(),
                        v -> ConfigValues.duration(e.path() + ".pool-idle-timeout", v)),
                e.parsed("pool-wait-timeout", PoolSettings.DEFAULTS.waitTimeout(),
                        v -> ConfigValues.duration(e.path() + ".pool-wait-timeout", v)));
        TransactionReplaySettings replay = new TransactionReplaySettings(e.bool("transaction-replay", false),
                e.parsed("transaction-replay-max-size", TransactionReplaySettings.DEFAULT_MAX_SIZE,
                        v -> replayMaxSize(e.path() + ".transaction-replay-max-size", v)));
        e.rejectUnknownKeys();
        return new EndpointConfig(listen, policy, requireTls, pool, replay);
    }

    private static ReadWeights weights(YamlSection e, List<String> endpointNodes) {
        Optional<JsonNode> w = e.node("weights");
        if (w.isEmpty() || (w.get().isTextual() && w.get().asText().equals("auto"))) {
            return ReadWeights.AUTO;
        }
        String path = e.path() + ".weights";
        if (!w.get().isObject()) {
            throw new ConfigException(path + ": '" + w.get().asText() + "' is not allowed; use auto or a map "
                    + "such as {primary: 0, ro1: 100}");
        }
        Map<String, Integer> out = new LinkedHashMap<>();
        for (var it = w.get().fields(); it.hasNext(); ) {
            var entry = it.next();
            if (!endpointNodes.contains(entry.getKey())) {
                throw new ConfigException(path + ": node '" + entry.getKey() + "' is not in this endpoint's nodes "
                        + endpointNodes);
            }
            JsonNode v = entry.getValue();
            if (!v.isIntegralNumber() || v.asLong() < 0 || v.asLong() > MAX_WEIGHT) {
                throw new ConfigException(path + "." + entry.getKey() + ": '" + v.asText()
                        + "' is not a weight; use a whole number in 0..10000");
            }
            out.put(entry.getKey(), v.asInt());
        }
        return new ReadWeights.Custom(out);
    }

    /** {@code prefer-same-zone: true} reads in Sluice's own zone, which must then be configured. */
    private static Optional<String> preferredZone(YamlSection e, Optional<String> zone) {
        if (!e.bool("prefer-same-zone", false)) {
            return Optional.empty();
        }
        if (zone.isEmpty()) {
            throw new ConfigException(e.path() + ".prefer-same-zone: Sluice's own zone is not set; add "
                    + "zone: NAME at the top of the configuration (the zone of the machine Sluice runs on)");
        }
        return zone;
    }

    private static AdminConfig admin(YamlSection s, SecretResolver secrets) {
        AdminConfig a = new AdminConfig(ConfigValues.hostPort(s.path() + ".listen",
                s.text("listen").orElse("127.0.0.1:8033")), secrets.read(s, "token", ""));
        s.rejectUnknownKeys();
        return a;
    }

    private static LimitsConfig limits(YamlSection s) {
        LimitsConfig l = new LimitsConfig(
                s.parsed("handshake-timeout", LimitsConfig.DEFAULT_HANDSHAKE_TIMEOUT,
                        v -> ConfigValues.duration(s.path() + ".handshake-timeout", v)),
                s.parsed("idle-timeout", LimitsConfig.DEFAULT_IDLE_TIMEOUT,
                        v -> ConfigValues.duration(s.path() + ".idle-timeout", v)),
                s.parsed("max-packet-size", LimitsConfig.DEFAULT_MAX_PACKET_SIZE,
                        v -> ConfigValues.size(s.path() + ".max-packet-size", v)),
                s.parsed("backend-connect-timeout", LimitsConfig.DEFAULT_BACKEND_CONNECT_TIMEOUT,
                        v -> ConfigValues.duration(s.path() + ".backend-connect-timeout", v)),
                s.integer("io-threads", Runtime.getRuntime().availableProcessors(), 1, 256),
                s.parsed("session-memory", LimitsConfig.DEFAULT_SESSION_MEMORY,
                        v -> sessionMemory(s.path() + ".session-memory", v)),
                loginFailures(s.sectionOrEmpty("login-failures")));
        s.rejectUnknownKeys();
        return l;
    }

    private static long replayMaxSize(String path, String text) {
        long v = ConfigValues.size(path, text);
        if (v < 1 || v > TransactionReplaySettings.MAX_MAX_SIZE) {
            throw new ConfigException(path + ": " + text + " is outside 1..1g");
        }
        return v;
    }

    private static long sessionMemory(String path, String text) {
        long v = ConfigValues.size(path, text);
        if (v < LimitsConfig.MIN_SESSION_MEMORY || v > MAX_SESSION_MEMORY) {
            throw new ConfigException(path + ": " + text + " is outside 64k..1024g");
        }
        return v;
    }

    private static LoginFailureLimit loginFailures(YamlSection s) {
        LoginFailureLimit d = LoginFailureLimit.DEFAULT;
        LoginFailureLimit l = new LoginFailureLimit(s.integer("max", d.max(), 0, MAX_LOGIN_FAILURES),
                s.parsed("window", d.window(), v -> positive(s.path() + ".window", v)),
                s.parsed("block", d.block(), v -> positive(s.path() + ".block", v)));
        s.rejectUnknownKeys();
        return l;
    }

    private static Duration positive(String path, String text) {
        Duration d = ConfigValues.duration(path, text);
        if (d.isZero()) {
            throw new ConfigException(path + ": must be longer than 0");
        }
        return d;
    }

    /** The topology the configuration describes, before any monitoring. */
    public static Topology topologyOf(List<NodeConfig> nodes) {
        Topology t = Topology.empty();
        for (NodeConfig n : nodes) {
            t = t.withNode(n.name(), n.address().toString(), n.role() == NodeConfig.Role.PRIMARY ? NodeRole.PRIMARY
                    : NodeRole.REPLICA, n.zone(), n.capacity());
        }
        return t;
    }

    /** The routing rules' own checks (a read-write endpoint needs the primary and a replica …). */
    public static void validate(EndpointConfig e, List<NodeConfig> nodes) {
        List<PolicyProblem> problems = e.policy().validate(topologyOf(nodes));
        if (!problems.isEmpty()) {
            throw new ConfigException("endpoint '" + e.name() + "': " + problems.stream()
                    .map(PolicyProblem::toString).collect(java.util.stream.Collectors.joining("; ")));
        }
    }

    private static void checkUnique(List<String> values, String where, String what) {
        Set<String> seen = new HashSet<>();
        for (String v : values) {
            if (!seen.add(v)) {
                throw new ConfigException(where + ": " + what + " '" + v + "' appears twice");
            }
        }
    }
}
