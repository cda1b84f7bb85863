package dev.sluice.routing.policy;

/** BEHAVIOUR §1: what an endpoint does with writes and how it spreads reads. */
public enum EndpointMode implements ConfigName {
    /** Writes to the primary, reads split by weight per statement. */
    READ_WRITE("read-write"),
    /** Each connection is mapped to one replica at connect time; writes are refused. */
    READ_ONLY("read-only");

    private final String configName;

    EndpointMode(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }
}
