package dev.sluice.routing.policy;

/**
 * One thing wrong with an endpoint policy, phrased for the person who wrote it: the config loader
 * prints it, the admin API returns it with HTTP 400.
 *
 * @param key     the configuration key at fault, e.g. {@code weights.ro1}
 * @param message what is wrong and what is allowed
 */
public record PolicyProblem(String key, String message) {

    /** {@code balancer: unknown value 'rr' (allowed: least-active, weighted)}. */
    public static <E extends Enum<E> & ConfigName> PolicyProblem unknownValue(String key, String value,
                                                                          Class<E> type) {
        return new PolicyProblem(key, "unknown value '" + value + "' (allowed: " + ConfigName.allowed(type) + ")");
    }

    @Override
    public String toString() {
        return key + ": " + message;
    }
}
