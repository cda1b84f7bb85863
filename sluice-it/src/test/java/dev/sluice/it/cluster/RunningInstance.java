package dev.sluice.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.sluice.it.support.SluiceHarness;
import dev.sluice.server.admin.NodeDescription;
import dev.sluice.server.admin.ProxyControl;
import java.util.Optional;

/**
 * What an in-process instance runs, read through the same operations its admin API answers with,
 * without the HTTP round trip. The 1 s bound of cluster mode is about an instance running a change;
 * on a loaded machine one HTTP request can take that long by itself, so the bound is checked here
 * and the admin API's answer right after it.
 */
final class RunningInstance {
    private final SluiceHarness instance;

    RunningInstance(SluiceHarness instance) {
        this.instance = instance;
    }

    private ProxyControl control() {
        return instance.server().control();
    }

    /** An endpoint's settings (DescribeDBProxyEndpoint), or a missing node when there is no such endpoint. */
    JsonNode endpoint(String name) {
        return control().describeEndpoint(name).<JsonNode>map(e -> e).orElse(MissingNode.getInstance());
    }

    Optional<NodeDescription> node(String name) {
        return control().describe().nodes().stream().filter(n -> n.name().equals(name)).findFirst();
    }
}
