package dev.sluice.server.config;

import java.util.List;
import java.util.Optional;

/** The whole configuration file. */
public record SluiceConfig(MonitorConfig monitor, List<NodeConfig> nodes, List<EndpointConfig> endpoints,
        AdminConfig admin, List<UserConfig> users, LimitsConfig limits) {

    public Optional<NodeConfig> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    public Optional<NodeConfig> primary() {
        return nodes.stream().filter(n -> n.role() == NodeConfig.Role.PRIMARY).findFirst();
    }
}
