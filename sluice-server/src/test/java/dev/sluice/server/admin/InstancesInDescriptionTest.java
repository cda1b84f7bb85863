package dev.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.server.switchover.SwitchoverStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class InstancesInDescriptionTest {
    @Test
    void outsideClusterModeDescribeProxyHasNoInstancesKey() throws Exception {
        JsonNode json = AdminJson.MAPPER.valueToTree(new ProxyDescription("v", 1, List.of(), List.of()));
        assertThat(json.has("instances")).isFalse();
    }

    @Test
    void inClusterModeEveryInstanceIsListedAndReadBack() throws Exception {
        ProxyDescription d = new ProxyDescription("v", 1, List.of(), List.of(), SwitchoverStatus.NONE,
                dev.sluice.server.switchover.FailoverStatus.NONE, List.of(new InstanceDescription("a", List.of("rw=127.0.0.1:6033"), "127.0.0.1:8033")));
        String text = AdminJson.MAPPER.writeValueAsString(d);
        assertThat(AdminJson.MAPPER.readTree(text).get("instances").get(0).get("name").asText()).isEqualTo("a");
        assertThat(AdminJson.MAPPER.readValue(text, ProxyDescription.class).instances()).isEqualTo(d.instances());
    }

    @Test
    void theLeaderIsShownInClusterModeAndLeftOutOtherwise() throws Exception {
        ProxyDescription d = new ProxyDescription("v", 1, List.of(), List.of(), SwitchoverStatus.NONE,
                dev.sluice.server.switchover.FailoverStatus.NONE, List.of(), "b");
        JsonNode json = AdminJson.MAPPER.readTree(AdminJson.MAPPER.writeValueAsString(d));
        assertThat(json.get("leader").asText()).isEqualTo("b");
        assertThat(AdminJson.MAPPER.valueToTree(new ProxyDescription("v", 1, List.of(), List.of())).has("leader"))
                .isFalse();
    }
}
