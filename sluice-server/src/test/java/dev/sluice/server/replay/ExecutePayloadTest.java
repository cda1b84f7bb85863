package dev.sluice.server.replay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An EXECUTE made to run alike on a connection that never saw the statement's parameter types. */
class ExecutePayloadTest {
    private static final byte[] TYPES = {8, 0, (byte) 0xFD, 0};

    @Test
    void anExecuteWithoutTypesGetsTheLastOnesAndTheClientsId() {
        // id 77 on the backend, no cursor, 1 iteration, 2 parameters: NULL bitmap, bound = 0, values.
        byte[] sent = {0x17, 77, 0, 0, 0, 0, 1, 0, 0, 0, 0b10, 0, 5, 0, 0, 0, 0, 0, 0, 0};
        byte[] recorded = ExecutePayload.forReplay(sent.clone(), 3, 2, TYPES);
        assertThat(recorded).containsExactly(0x17, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0b10, 1, 8, 0, 0xFD, 0,
                5, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void anExecuteWithItsTypesIsKeptAsItIsUnderTheClientsId() {
        byte[] sent = {0x17, 77, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 8, 0, (byte) 0xFD, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 'x'};
        byte[] recorded = ExecutePayload.forReplay(sent.clone(), 3, 2, new byte[] {3, 0, 3, 0});
        byte[] expected = sent.clone();
        expected[1] = 3;
        assertThat(recorded).as("the types it carries win over older ones").containsExactly(expected);
    }

    @Test
    void aStatementWithoutParametersOrAPayloadTooShortIsOnlyRenamed() {
        byte[] none = {0x17, 77, 0, 0, 0, 0, 1, 0, 0, 0};
        assertThat(ExecutePayload.forReplay(none.clone(), 0x01020304, 0, null))
                .containsExactly(0x17, 4, 3, 2, 1, 0, 1, 0, 0, 0);
        byte[] cut = {0x17, 77, 0, 0, 0, 0, 1, 0, 0, 0, 0};
        assertThat(ExecutePayload.forReplay(cut.clone(), 3, 2, TYPES)).hasSize(cut.length);
        byte[] unknownTypes = {0x17, 77, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1};
        assertThat(ExecutePayload.forReplay(unknownTypes.clone(), 3, 1, null)).hasSize(unknownTypes.length);
    }

    @Test
    void theCursorFlagsAreTold() {
        assertThat(ExecutePayload.opensCursor(0)).isFalse();
        assertThat(ExecutePayload.opensCursor(1)).as("CURSOR_TYPE_READ_ONLY").isTrue();
        assertThat(ExecutePayload.opensCursor(4)).as("CURSOR_TYPE_SCROLLABLE").isTrue();
        assertThat(ExecutePayload.opensCursor(0x08)).as("PARAMETER_COUNT_AVAILABLE, not a cursor").isFalse();
    }
}
