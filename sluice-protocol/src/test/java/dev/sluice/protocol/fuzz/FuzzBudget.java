package dev.sluice.protocol.fuzz;

/**
 * How long each fuzz target of this module fuzzes in an ordinary build ({@code mvn verify}), on
 * top of replaying its seeds and regression inputs. The budget is wall-clock time per target, so a
 * slower machine runs fewer inputs rather than a longer build. For a real campaign, override it
 * on the command line: {@code mvn test -pl sluice-protocol -Djazzer.max_duration=30m
 * -Dtest=ResponseTrackerFuzzTest}.
 */
final class FuzzBudget {
    /** Per target; the module's targets run one after another, each in its own JVM. */
    static final String PER_TARGET = "10s";

    private FuzzBudget() {
    }
}
