package dev.sluice.server.switchover;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The switchover in progress, or else the last one, as DescribeDBProxy shows it (BEHAVIOUR §10).
 *
 * @param state {@code none} (none since Sluice started), {@code in-progress}, {@code done},
 *     {@code called-off} or {@code refused}
 * @param from the primary it moves from, null when not known (a refusal before a target was chosen)
 * @param to the node it moves to, likewise
 * @param step in progress, the last step done; at the end, the last step reached
 * @param message why it was refused or called off, or its warnings; null when there is nothing to say
 * @param heldMillis how long writes were held, when it is over
 * @param atMillis when it started (in progress) or ended, epoch milliseconds; 0 for {@code none}
 */
public record SwitchoverStatus(@JsonProperty("state") String state, @JsonProperty("from") String from,
        @JsonProperty("to") String to, @JsonProperty("step") String step, @JsonProperty("message") String message,
        @JsonProperty("held-ms") Long heldMillis, @JsonProperty("at") long atMillis) {

    public static final SwitchoverStatus NONE = new SwitchoverStatus("none", null, null, null, null, null, 0);

    public boolean inProgress() {
        return state.equals("in-progress");
    }
}
