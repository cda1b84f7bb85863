package dev.sluice.routing.policy;

/** BEHAVIOUR §5: what happens to a read when no replica reached the required position in time. */
public enum TimeoutAction implements ConfigName {
    /** Run the read on the primary, which always has the position. */
    PRIMARY("primary"),
    /** Return {@code wait replication complete timeout, please retry}. */
    ERROR("error");

    private final String configName;

    TimeoutAction(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }
}
