package dev.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.config.ConfigException;
import dev.sluice.server.config.ConfigLoader;
import dev.sluice.server.config.NodeConfig;

/** A node as the admin API receives it: the same keys, checks and messages as in {@code nodes:}. */
final class NodeDefinitions {
    private NodeDefinitions() {
    }

    static NodeConfig parse(JsonNode definition) {
        if (definition == null || !definition.isObject()) {
            throw new ConfigException("a node is a JSON object such as {\"name\": \"ro3\", \"address\": "
                    + "\"127.0.0.1:3314\", \"role\": \"replica\"}");
        }
        // The file's own parser, so the rules cannot drift apart.
        return ConfigLoader.parseNode(definition);
    }
}
