package dev.sluice.routing.policy;

/** BEHAVIOUR §5: what a replica must have applied before it may answer a read. */
public enum ConsistencyLevel implements ConfigName {
    /** Nothing beyond healthy replication under the lag threshold. */
    EVENTUAL("eventual"),
    /** The last transaction this client connection committed. */
    SESSION("session"),
    /** The primary's position when the read arrived. */
    GLOBAL("global");

    private final String configName;

    ConsistencyLevel(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }
}
