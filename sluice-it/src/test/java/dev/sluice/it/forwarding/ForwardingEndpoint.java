package dev.sluice.it.forwarding;

/**
 * The endpoint these tests go through: read-write, with every read weight on the primary (a
 * replica left out of {@code weights} has weight 0, so it gets no reads; BEHAVIOUR §2). They test
 * forwarding — that what a client sends reaches the server and what the server answers reaches
 * the client, unchanged — so every statement must land where a direct connection would: on the
 * primary (and {@code @@pseudo_thread_id} names a primary connection). Read routing is tested elsewhere.
 */
final class ForwardingEndpoint {
    static final String PRIMARY_ONLY = "weights: {primary: 100}";

    /** The whole endpoints section: that endpoint, {@code rw}. */
    static final String SECTION = """
            endpoints:
              - name: rw
                listen: 127.0.0.1:0
                mode: read-write
                %s
            """.formatted(PRIMARY_ONLY);

    private ForwardingEndpoint() {
    }
}
