package dev.sluice.server.switchover;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The failover in progress, or else the last one, as DescribeDBProxy shows it (BEHAVIOUR §10).
 *
 * @param state {@code none} (none since Sluice started), {@code in-progress}, {@code done},
 *     {@code called-off} or {@code refused}
 * @param trigger {@code manual} (the admin API or CLI) or {@code auto} (the monitor)
 * @param from the primary that failed, null when not known yet
 * @param to the node promoted, null when not chosen (yet)
 * @param step in progress, the last step done; at the end, the last step reached
 * @param steps once done, every step and how long it took
 * @param message why it was refused or called off, or its warnings; null when there is nothing to say
 * @param heldMillis how long writes were held, when it is over
 * @param atMillis when it started (in progress) or ended, epoch milliseconds; 0 for {@code none}
 * @param promotedAt the new primary's GTID position at its promotion, once done
 * @param formerPrimaryNode the old primary of the last failover done (which may be an earlier one
 *     than this status's, when a later one was refused or called off); null before any was done
 * @param formerPrimary what became of it: {@code down} (not back yet), {@code rejoined},
 *     {@code diverged} or {@code not-replicating}
 * @param unshipped transactions it holds that the new primary did not have at its promotion
 *     (commits lost to clients), once it is back; null before
 * @param formerPrimaryMessage what became of it, in words
 */
public record FailoverStatus(@JsonProperty("state") String state, @JsonProperty("trigger") String trigger,
        @JsonProperty("from") String from, @JsonProperty("to") String to, @JsonProperty("step") String step,
        @JsonProperty("steps") List<SwitchoverOutcome.Step> steps, @JsonProperty("message") String message,
        @JsonProperty("held-ms") Long heldMillis, @JsonProperty("at") long atMillis,
        @JsonProperty("promoted-at") String promotedAt, @JsonProperty("former-primary-node") String formerPrimaryNode,
        @JsonProperty("former-primary") String formerPrimary,
        @JsonProperty("unshipped") Long unshipped, @JsonProperty("former-primary-message") String formerPrimaryMessage) {

    public static final FailoverStatus NONE = new FailoverStatus("none", null, null, null, null, List.of(), null, null,
            0, null, null, null, null, null);

    public FailoverStatus {
        steps = steps == null ? List.of() : List.copyOf(steps);
    }

    public boolean inProgress() {
        return state.equals("in-progress");
    }

    /** The same failover, with what became of its old primary. */
    FailoverStatus withFormerPrimary(String node, String what, Long lost, String words) {
        return new FailoverStatus(state, trigger, from, to, step, steps, message, heldMillis, atMillis, promotedAt,
                node, what, lost, words);
    }
}
