package dev.sluice.protocol.handshake;

import dev.sluice.protocol.Fields;
import dev.sluice.protocol.MalformedPacketException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The server asks the client to authenticate again with another plugin and a new seed.
 *
 * <pre>
 * int&lt;1&gt;     0xFE
 * string&lt;NUL&gt; plugin name
 * string&lt;EOF&gt; plugin data (for mysql_native_password: the 20-byte seed plus a NUL)
 * </pre>
 *
 * <p>Sharp edge: a lone 0xFE byte is the pre-4.1 "old password" switch; it decodes as plugin
 * {@value #OLD_PASSWORD_PLUGIN} with no data. The client's answer is a bare packet holding
 * the plugin's response bytes, with the next sequence id.
 *
 * @param pluginName plugin to switch to
 * @param pluginData plugin data exactly as sent (may end with a NUL; see {@link #seed()})
 * @see <a href="https://mariadb.com/kb/en/connection/#authentication-switch-request">MariaDB: authentication switch request</a>
 */
public record AuthSwitchRequest(String pluginName, byte[] pluginData) {
    public static final int HEADER = 0xFE;
    public static final String OLD_PASSWORD_PLUGIN = "mysql_old_password";

    public AuthSwitchRequest {
        Objects.requireNonNull(pluginName, "pluginName");
        pluginData = pluginData.clone();
    }

    /** The form servers send for a scramble-based plugin: the seed followed by a NUL. */
    public static AuthSwitchRequest withSeed(String pluginName, byte[] seed) {
        return new AuthSwitchRequest(pluginName, Arrays.copyOf(seed, seed.length + 1));
    }

    @Override
    public byte[] pluginData() {
        return pluginData.clone();
    }

    /** The plugin data without its trailing NUL, i.e. the seed to scramble with. */
    public byte[] seed() {
        int length = pluginData.length;
        if (length > 0 && pluginData[length - 1] == 0) {
            length--;
        }
        return Arrays.copyOf(pluginData, length);
    }

    public void encode(ByteBuf out) {
        out.writeByte(HEADER);
        Fields.writeNulString(out, pluginName, StandardCharsets.UTF_8);
        out.writeBytes(pluginData);
    }

    public static AuthSwitchRequest decode(ByteBuf in) {
        int header = Fields.readInt1(in, "auth switch header");
        if (header != HEADER) {
            throw new MalformedPacketException(String.format("auth switch request: header 0x%02x", header));
        }
        if (!in.isReadable()) {
            return new AuthSwitchRequest(OLD_PASSWORD_PLUGIN, new byte[0]);
        }
        String plugin = Fields.readNulString(in, StandardCharsets.UTF_8, "auth switch plugin name");
        return new AuthSwitchRequest(plugin, Fields.readRestBytes(in));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthSwitchRequest r && pluginName.equals(r.pluginName)
                && Arrays.equals(pluginData, r.pluginData);
    }

    @Override
    public int hashCode() {
        return 31 * pluginName.hashCode() + Arrays.hashCode(pluginData);
    }

    @Override
    public String toString() {
        return "AuthSwitchRequest[pluginName=" + pluginName + ", pluginData=<" + pluginData.length + " bytes>]";
    }
}
