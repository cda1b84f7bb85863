package dev.sluice.protocol.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.protocol.Capabilities;
import dev.sluice.protocol.Fields;
import dev.sluice.protocol.LengthEncoded;
import dev.sluice.protocol.NoLeaks;
import dev.sluice.protocol.response.ColumnCount;
import dev.sluice.protocol.response.ColumnDefinition;
import dev.sluice.protocol.response.EofPacket;
import dev.sluice.protocol.response.ErrPacket;
import dev.sluice.protocol.response.OkPacket;
import dev.sluice.protocol.response.PrepareOk;
import dev.sluice.protocol.response.SessionStateChange;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command-phase decoders (OK, ERR, EOF, PREPARE_OK, column count and definition) and the
 * length-encoded and fixed field readers under them, fed arbitrary payloads under arbitrary
 * negotiated capabilities. Besides the decoder contract, the in-place readers of the forwarding
 * path must agree with the full decoders wherever those accept the payload.
 *
 * <p>Input: one byte of capability flags ({@link #CAPABILITY_BITS}, bit i set = flag i
 * negotiated), then the payload.
 */
@ExtendWith(NoLeaks.class)
class ResponsePacketFuzzTest {
    /** The flags that change how these packets are laid out. */
    private static final long[] CAPABILITY_BITS = {
        Capabilities.CLIENT_PROTOCOL_41, Capabilities.CLIENT_TRANSACTIONS, Capabilities.CLIENT_SESSION_TRACK,
        Capabilities.CLIENT_DEPRECATE_EOF, Capabilities.MARIADB_CLIENT_EXTENDED_TYPE_INFO,
        Capabilities.MARIADB_CLIENT_CACHE_METADATA, Capabilities.CLIENT_OPTIONAL_RESULTSET_METADATA,
        Capabilities.CLIENT_MYSQL,
    };
    /** What a MySQL 5.x-era client negotiates. */
    private static final int CLASSIC = 0b0000_0011;
    /** What the MariaDB CLI and Connector/J negotiate with MariaDB 10.11. */
    private static final int MARIADB = 0b0011_1111;
    private static final String TRACKED = "last_gtid";

    private final AccountedAllocator allocator = new AccountedAllocator();
    private final DecoderContract contract = new DecoderContract(allocator);

    static Stream<byte[]> goldenPayloads() {
        return GoldenSeeds.serverPayloads().stream()
                .flatMap(p -> Stream.of(GoldenSeeds.prefixed(p, CLASSIC), GoldenSeeds.prefixed(p, MARIADB)));
    }

    static long capabilities(int bits) {
        long caps = 0;
        for (int i = 0; i < CAPABILITY_BITS.length; i++) {
            if ((bits & 1 << i) != 0) {
                caps |= CAPABILITY_BITS[i];
            }
        }
        return caps;
    }

    @MethodSource("goldenPayloads")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void everyCommandPhaseDecoder(byte[] input) {
        if (input.length == 0) {
            return;
        }
        long caps = capabilities(input[0] & 0xFF);
        byte[] payload = Arrays.copyOfRange(input, 1, input.length);

        ok(payload, caps);
        contract.roundTrip("ErrPacket", payload, ErrPacket::decode,
                (v, out) -> v.encodePayload(out, Capabilities.CLIENT_PROTOCOL_41));
        contract.inPlace(payload, ErrPacket::isProgressReport);
        eof(payload, caps);
        prepareOk(payload);
        contract.roundTrip("ColumnDefinition", payload, in -> ColumnDefinition.decode(in, caps),
                (v, out) -> v.encodePayload(out, caps));
        contract.roundTrip("ColumnCount", payload, in -> ColumnCount.decode(in, caps),
                (v, out) -> v.encodePayload(out, caps));
        fields(payload);
        allocator.assertAllReleased();
    }

    private void ok(byte[] payload, long caps) {
        boolean eofHeader = payload.length > 0 && (payload[0] & 0xFF) == OkPacket.EOF_HEADER;
        Optional<OkPacket> ok = contract.roundTrip("OkPacket", payload, in -> OkPacket.decode(in, caps),
                (v, out) -> v.encodePayload(out, caps, eofHeader));
        Optional<Integer> status = contract.inPlace(payload, in -> OkPacket.statusFlagsOf(in, caps));
        Optional<Optional<String>> tracked = contract.inPlace(payload,
                in -> OkPacket.sessionTrackedVariable(in, caps, TRACKED));
        if (ok.isEmpty()) {
            return;
        }
        require(status.equals(Optional.of(ok.get().statusFlags())),
                "statusFlagsOf says " + status + ", the decoder " + ok.get());
        if (Capabilities.has(caps, Capabilities.CLIENT_PROTOCOL_41)
                && Capabilities.has(caps, Capabilities.CLIENT_SESSION_TRACK)) {
            Optional<String> decoded = ok.get().sessionStateChanges().stream()
                    .filter(c -> c instanceof SessionStateChange.SystemVariable v && v.name().equals(TRACKED))
                    .map(c -> ((SessionStateChange.SystemVariable) c).value())
                    .findFirst();
            require(tracked.equals(Optional.of(decoded)),
                    "sessionTrackedVariable says " + tracked + ", the decoder " + ok.get());
        }
    }

    private void eof(byte[] payload, long caps) {
        Optional<EofPacket> eof = contract.roundTrip("EofPacket", payload, in -> EofPacket.decode(in, caps),
                (v, out) -> v.encodePayload(out, caps));
        contract.inPlace(payload, EofPacket::isEof);
        contract.inPlace(payload, in -> EofPacket.isResultSetEnd(in, caps));
        Optional<Integer> status = contract.inPlace(payload, EofPacket::statusFlagsOf);
        if (eof.isPresent() && Capabilities.has(caps, Capabilities.CLIENT_PROTOCOL_41)) {
            require(status.equals(Optional.of(eof.get().statusFlags())),
                    "EofPacket.statusFlagsOf says " + status + ", the decoder " + eof.get());
        }
    }

    private void prepareOk(byte[] payload) {
        Optional<PrepareOk> prepared = contract.roundTrip("PrepareOk", payload, PrepareOk::decode,
                (v, out) -> v.encodePayload(out));
        Optional<Long> id = contract.inPlace(payload, PrepareOk::statementIdOf);
        if (prepared.isPresent() && id.isPresent()) {
            require(id.get() == prepared.get().statementId(),
                    "statementIdOf says " + id + ", the decoder " + prepared.get());
        }
        contract.inPlace(payload, in -> {
            long rewritten = ~prepared.map(PrepareOk::statementId).orElse(0L) & 0xFFFF_FFFFL;
            PrepareOk.rewriteStatementId(in, rewritten);
            require(PrepareOk.statementIdOf(in) == rewritten, "rewriteStatementId did not stick");
            return rewritten;
        });
    }

    /** The field readers the decoders are built from, on the same bytes. */
    private void fields(byte[] payload) {
        contract.roundTrip("LengthEncoded integer", payload, in -> {
            int size = LengthEncoded.encodedSizeAt(in, in.readerIndex());
            long atIndex = LengthEncoded.getIntegerAt(in, in.readerIndex());
            int before = in.readerIndex();
            long value = LengthEncoded.readInteger(in);
            require(in.readerIndex() - before == size && value == atIndex,
                    "readInteger disagrees with encodedSizeAt/getIntegerAt");
            return value;
        }, (v, out) -> LengthEncoded.writeInteger(out, v));
        contract.roundTrip("LengthEncoded string", payload,
                in -> LengthEncoded.readNullableString(in, StandardCharsets.UTF_8, "s"),
                (v, out) -> v.ifPresentOrElse(s -> LengthEncoded.writeString(out, s),
                        () -> LengthEncoded.writeNull(out)));
        contract.roundTrip("NUL string", payload, in -> Fields.readNulString(in, StandardCharsets.UTF_8, "s"),
                (v, out) -> Fields.writeNulString(out, v, StandardCharsets.UTF_8));
        contract.inPlace(payload, in -> {
            ByteBuf slice = LengthEncoded.readSlice(in, "s");
            return slice.readableBytes();
        });
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
