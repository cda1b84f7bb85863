package dev.sluice.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Reads cluster mode's shared configuration (BEHAVIOUR §11) — {@code nodes:}, {@code endpoints:},
 * {@code draining:} and {@code former-primary: {node, promoted-at}}, as {@link ConfigWriter#sharedYaml} writes them — with the file's own
 * parsing and checks, into an instance's configuration whose other sections stay its own.
 */
final class SharedConfigReader {
    /** What the shared configuration holds: what the admin API changes. */
    private static final String[] SHARED_KEYS = {"nodes", "endpoints", "draining", "former-primary"};

    private SharedConfigReader() {
    }

    static SharedConfig read(SluiceConfig local, String sharedYaml) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(sharedYaml);
        } catch (IOException e) {
            throw new ConfigException("the shared configuration is not valid YAML: " + e.getMessage(), e);
        }
        YamlSection top = new YamlSection("", root);
        for (String section : SHARED_KEYS) {
            top.has(section);
        }
        top.rejectUnknownKeys();
        List<NodeConfig> nodes = ConfigLoader.nodes(top);
        List<String> draining = top.stringList("draining");
        for (String n : draining) {
            if (nodes.stream().noneMatch(node -> node.name().equals(n))) {
                throw new ConfigException("draining: unknown node '" + n + "'");
            }
        }
        Optional<SharedConfig.FormerPrimary> former = top.section("former-primary").map(f -> {
            SharedConfig.FormerPrimary held = new SharedConfig.FormerPrimary(f.requiredText("node"),
                    f.requiredText("promoted-at"));
            f.rejectUnknownKeys();
            if (nodes.stream().noneMatch(node -> node.name().equals(held.node()))) {
                throw new ConfigException("former-primary: unknown node '" + held.node() + "'");
            }
            return held;
        });
        return new SharedConfig(local.with(nodes, ConfigLoader.endpoints(top, nodes, local.zone())), draining, former);
    }
}
