package dev.sluice.routing.policy;

/** BEHAVIOUR §2: how a read picks among its candidate nodes. */
public enum BalancerKind implements ConfigName {
    /** Smallest {@code (active requests + 1) / weight}; the default, it absorbs peaks best. */
    LEAST_ACTIVE("least-active"),
    /** Smooth weighted round-robin. */
    WEIGHTED("weighted");

    private final String configName;

    BalancerKind(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }
}
