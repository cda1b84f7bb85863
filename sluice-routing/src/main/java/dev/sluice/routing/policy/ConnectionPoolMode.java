package dev.sluice.routing.policy;

/** BEHAVIOUR §7: when a backend connection may serve another client connection. */
public enum ConnectionPoolMode implements ConfigName {
    /** Never: backend connections live and die with their client connection. */
    NONE("none"),
    /** After the client disconnects (same user and database, after a state reset). */
    SESSION("session"),
    /** After each transaction, unless the client did something that locks it to the backend. */
    TRANSACTION("transaction");

    private final String configName;

    ConnectionPoolMode(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }
}
