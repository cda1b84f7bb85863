package dev.sluice.server.switchover;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What a switchover did: from which primary to which, its steps with how long each took, how long
 * writes were held, and any warning about the cluster after it (a replica whose replication did
 * not start).
 */
public record SwitchoverOutcome(@JsonProperty("from") String from, @JsonProperty("to") String to,
        @JsonProperty("steps") List<Step> steps, @JsonProperty("held-ms") long heldMillis,
        @JsonProperty("warnings") List<String> warnings) {

    public SwitchoverOutcome {
        steps = List.copyOf(steps);
        warnings = List.copyOf(warnings);
    }

    /** One step and its duration. */
    public record Step(@JsonProperty("step") String name, @JsonProperty("ms") long millis) {
    }
}
