package dev.sluice.routing.policy;

import dev.sluice.routing.topology.Node;
import java.util.Map;

/**
 * BEHAVIOUR §2 read weights, 0..10000 per node. {@link Auto} derives them from capacity so that replicas
 * added later get a weight without a configuration change; {@link Custom} is an explicit map in
 * which a node that is missing, or added later, weighs 0 (it gets no reads until someone says so).
 */
public sealed interface ReadWeights permits ReadWeights.Auto, ReadWeights.Custom {

    /** The highest weight a node can have. */
    int MAX_WEIGHT = 10_000;
    /** {@code auto} gives a replica this much per unit of capacity. */
    int AUTO_WEIGHT_PER_CAPACITY = 100;

    /** The shared {@code weights: auto} value. */
    ReadWeights AUTO = new Auto();

    /** The weight {@code node} has on an endpoint in {@code mode}. The primary has none on a read-only endpoint. */
    int weightOf(Node node, EndpointMode mode);

    /** {@code weights: auto}: replicas {@code 100 × capacity}, the primary 0. */
    record Auto() implements ReadWeights {
        @Override
        public int weightOf(Node node, EndpointMode mode) {
            return weightOf(node.isPrimary(), node.capacity());
        }

        /** The weight {@code auto} gives a node of this role and capacity. */
        public static int weightOf(boolean primary, int capacity) {
            return primary ? 0 : (int) Math.min(MAX_WEIGHT, (long) AUTO_WEIGHT_PER_CAPACITY * capacity);
        }

        @Override
        public String toString() {
            return "auto";
        }
    }

    /**
     * {@code weights: {primary: 0, ro1: 100}}; out-of-range values are reported by validation and
     * clamped here so a bad map can never produce a negative weight.
     *
     * @param byNodeName weight per node name
     */
    record Custom(Map<String, Integer> byNodeName) implements ReadWeights {
        public Custom {
            byNodeName = Map.copyOf(byNodeName);
        }

        @Override
        public int weightOf(Node node, EndpointMode mode) {
            if (node.isPrimary() && mode == EndpointMode.READ_ONLY) {
                return 0;
            }
            int weight = byNodeName.getOrDefault(node.name(), 0);
            return Math.max(0, Math.min(MAX_WEIGHT, weight));
        }
    }
}
