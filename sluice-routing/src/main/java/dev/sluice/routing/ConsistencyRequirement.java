package dev.sluice.routing;

import dev.sluice.routing.gtid.GtidPosition;
import dev.sluice.routing.policy.TimeoutAction;
import java.time.Duration;

/**
 * What a replica read needs before it may run (BEHAVIOUR §5): nothing, or a GTID position the chosen
 * replica is not known to have yet. For the latter the server waits on that replica with
 * {@code MASTER_GTID_WAIT(position, timeout)} / {@code WAIT_FOR_EXECUTED_GTID_SET}, then runs the
 * read there, or applies {@code onTimeout}.
 */
public sealed interface ConsistencyRequirement permits ConsistencyRequirement.None, ConsistencyRequirement.WaitFor {

    /** The shared "nothing required" value. */
    None NONE = new None();

    /** Run at once. */
    record None() implements ConsistencyRequirement {
    }

    /**
     * Wait until the replica has applied {@code position}.
     *
     * @param position  what must be applied
     * @param timeout   how long to wait at most
     * @param onTimeout run on the primary, or return {@link RouteError#consistencyTimeout()}
     */
    record WaitFor(GtidPosition position, Duration timeout, TimeoutAction onTimeout)
            implements ConsistencyRequirement {
    }
}
