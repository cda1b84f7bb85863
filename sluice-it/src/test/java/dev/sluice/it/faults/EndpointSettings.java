package dev.sluice.it.faults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.it.support.SluiceHarness;

/** ModifyDBProxyEndpoint on the running Sluice, settings given as JSON in their configuration-file form. */
final class EndpointSettings {
    private static final ObjectMapper JSON = new ObjectMapper();

    private EndpointSettings() {
    }

    static void modify(SluiceHarness sluice, String endpoint, String changes) {
        try {
            sluice.server().control().modifyEndpoint(endpoint, JSON.readTree(changes));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("bad JSON in a test: " + changes, e);
        }
    }
}
