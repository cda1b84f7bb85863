package dev.sluice.protocol.response;

import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One entry of the session state information an OK packet carries when the client has
 * CLIENT_SESSION_TRACK and the server sets SERVER_SESSION_STATE_CHANGED. Each entry is
 * {@code int<1>} type, {@code string<lenenc>} data; the data's layout depends on the type.
 *
 * <p>MariaDB reports the GTID of the last transaction as a {@link SystemVariable} named
 * {@code last_gtid} when {@code session_track_system_variables} includes it; MySQL uses
 * {@link Gtids}. Types this code does not know decode as {@link Unknown}, skipped by length.
 *
 * @see <a href="https://mariadb.com/kb/en/ok_packet/#session-change-type">MariaDB: OK packet, session change type</a>
 * @see <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_ok_packet.html">MySQL: OK_Packet</a>
 */
public sealed interface SessionStateChange {
    int SESSION_TRACK_SYSTEM_VARIABLES = 0;
    int SESSION_TRACK_SCHEMA = 1;
    int SESSION_TRACK_STATE_CHANGE = 2;
    int SESSION_TRACK_GTIDS = 3;
    int SESSION_TRACK_TRANSACTION_CHARACTERISTICS = 4;
    int SESSION_TRACK_TRANSACTION_STATE = 5;

    /** The entry's type byte. */
    int type();

    /** Writes the entry's data (without type and length). */
    void encodeData(ByteBuf out);

    /** A system variable's new value, e.g. {@code autocommit=ON} or MariaDB's {@code last_gtid=0-1-42}. */
    record SystemVariable(String name, String value) implements SessionStateChange {
        public SystemVariable {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public int type() {
            return SESSION_TRACK_SYSTEM_VARIABLES;
        }

        @Override
        public void encodeData(ByteBuf out) {
            LengthEncoded.writeString(out, name);
            LengthEncoded.writeString(out, value);
        }
    }

    /** The default database changed. */
    record Schema(String name) implements SessionStateChange {
        public Schema {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public int type() {
            return SESSION_TRACK_SCHEMA;
        }

        @Override
        public void encodeData(ByteBuf out) {
            LengthEncoded.writeString(out, name);
        }
    }

    /**
     * Some session state changed. Sharp edge: the data is one raw character, {@code '1'}, not a
     * length-encoded string as the MySQL manual suggests (golden {@code ok-session-state.hex}).
     */
    record StateChange(boolean changed) implements SessionStateChange {
        @Override
        public int type() {
            return SESSION_TRACK_STATE_CHANGE;
        }

        @Override
        public void encodeData(ByteBuf out) {
            out.writeByte(changed ? '1' : '0');
        }
    }

    /** MySQL's GTID set ({@code session_track_gtids}); {@code encoding} is 0 (text). */
    record Gtids(int encoding, String gtids) implements SessionStateChange {
        public Gtids {
            Objects.requireNonNull(gtids, "gtids");
        }

        @Override
        public int type() {
            return SESSION_TRACK_GTIDS;
        }

        @Override
        public void encodeData(ByteBuf out) {
            out.writeByte(encoding);
            LengthEncoded.writeString(out, gtids);
        }
    }

    /** SQL that would restore the transaction's characteristics, e.g. {@code START TRANSACTION READ ONLY;}. */
    record TransactionCharacteristics(String characteristics) implements SessionStateChange {
        public TransactionCharacteristics {
            Objects.requireNonNull(characteristics, "characteristics");
        }

        @Override
        public int type() {
            return SESSION_TRACK_TRANSACTION_CHARACTERISTICS;
        }

        @Override
        public void encodeData(ByteBuf out) {
            LengthEncoded.writeString(out, characteristics);
        }
    }

    /** The 8-character transaction state, e.g. {@code T_______} or {@code ________}. */
    record TransactionState(String state) implements SessionStateChange {
        public TransactionState {
            Objects.requireNonNull(state, "state");
        }

        @Override
        public int type() {
            return SESSION_TRACK_TRANSACTION_STATE;
        }

        @Override
        public void encodeData(ByteBuf out) {
            LengthEncoded.writeString(out, state);
        }
    }

    /** An entry of a type this code does not know, kept as raw bytes. */
    record Unknown(int type, byte[] data) implements SessionStateChange {
        public Unknown {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public void encodeData(ByteBuf out) {
            out.writeBytes(data);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Unknown u && type == u.type && Arrays.equals(data, u.data);
        }

        @Override
        public int hashCode() {
            return 31 * type + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Unknown[type=" + type + ", data=<" + data.length + " bytes>]";
        }
    }

    /** Writes type, length and data. */
    static void encode(ByteBuf out, SessionStateChange change) {
        ByteBuf data = Unpooled.buffer();
        try {
            change.encodeData(data);
            out.writeByte(change.type());
            LengthEncoded.writeBytes(out, data);
        } finally {
            data.release();
        }
    }

    /** Reads one entry (type, length, data) and adds what it holds to {@code into}. */
    static void decode(ByteBuf in, List<SessionStateChange> into) {
        int type = Fields.readInt1(in, "session state type");
        ByteBuf data = LengthEncoded.readSlice(in, "session state data");
        switch (type) {
            case SESSION_TRACK_SYSTEM_VARIABLES:
                // One pair per entry in practice; a server may pack several, so read them all.
                do {
                    String name = LengthEncoded.readString(data, "system variable name");
                    into.add(new SystemVariable(name, LengthEncoded.readString(data, "system variable value")));
                } while (data.isReadable());
                return;
            case SESSION_TRACK_SCHEMA:
                into.add(new Schema(LengthEncoded.readString(data, "schema")));
                return;
            case SESSION_TRACK_STATE_CHANGE:
                // One raw byte in practice; tolerate a length-encoded "1" as well.
                String flag = data.readableBytes() == 1
                        ? Fields.readRestString(data, StandardCharsets.US_ASCII)
                        : LengthEncoded.readString(data, "state change");
                into.add(new StateChange("1".equals(flag)));
                return;
            case SESSION_TRACK_GTIDS:
                int encoding = Fields.readInt1(data, "gtids encoding");
                into.add(new Gtids(encoding, LengthEncoded.readString(data, "gtids")));
                return;
            case SESSION_TRACK_TRANSACTION_CHARACTERISTICS:
                into.add(new TransactionCharacteristics(LengthEncoded.readString(data, "transaction characteristics")));
                return;
            case SESSION_TRACK_TRANSACTION_STATE:
                into.add(new TransactionState(LengthEncoded.readString(data, "transaction state")));
                return;
            default:
                into.add(new Unknown(type, Fields.readRestBytes(data)));
        }
    }

}
