package dev.sluice.server.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthMoreDataFormTest {
    private static final Map<String, String> CONNECTOR_J = Map.of("_client_name", "MySQL Connector/J");
    private static final Map<String, String> MARIADB_J = Map.of("_client_name", "MariaDB Connector/J");

    @Test
    void connectorJBehindAMariaDbVersionGetsTheStatusAlone() {
        assertThat(AuthMoreDataForm.payload(0x04, CONNECTOR_J, "5.5.5-10.11.19-MariaDB-0+deb12u1"))
                .containsExactly(0x04);
        assertThat(AuthMoreDataForm.payload(0x03, CONNECTOR_J, "5.5.15")).containsExactly(0x03);
    }

    @Test
    void everyoneElseGetsTheStandardHeader() {
        assertThat(AuthMoreDataForm.payload(0x04, CONNECTOR_J, "8.0.36")).containsExactly(0x01, 0x04);
        assertThat(AuthMoreDataForm.payload(0x04, CONNECTOR_J, "5.5.16")).containsExactly(0x01, 0x04);
        assertThat(AuthMoreDataForm.payload(0x04, MARIADB_J, "5.5.5-10.11.19-MariaDB")).containsExactly(0x01, 0x04);
        assertThat(AuthMoreDataForm.payload(0x03, Map.of(), "5.5.5-10.11.19-MariaDB")).containsExactly(0x01, 0x03);
        assertThat(AuthMoreDataForm.payload(0x03, CONNECTOR_J, "not a version")).containsExactly(0x01, 0x03);
    }
}
