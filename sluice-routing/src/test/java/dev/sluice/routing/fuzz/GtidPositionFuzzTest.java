package dev.sluice.routing.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.routing.gtid.GtidPosition;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GTID position parsing fed arbitrary text (a CONSISTENT_WITH hint, {@code last_gtid} from an OK
 * packet and {@code @@gtid_executed} all come from outside): it never throws, and what it accepts
 * behaves as a position should. Printing and parsing again gives the same position; a position
 * contains itself and lacks nothing of itself; a merge contains both halves it was made from.
 *
 * <p>Input: one byte saying where to cut the text in two for the merge check, then the text.
 */
class GtidPositionFuzzTest {
    private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

    static Stream<byte[]> positions() {
        return Stream.of("", "0-1-100", "0-1-42,1-2-7", " 1-2-7 ,\n 0-1-42 ", "0-1-5,0-2-9,0-1-7",
                "4294967295-4294967295-9223372036854775807", "0-1-99999999999999999999", "0-1-5,,1-1-1",
                UUID + ":1-5", UUID + ":1-5:7-9:12", UUID + ":1-5,\n" + UUID.replace('3', '4') + ":3",
                UUID + ":batch:1-3:7", UUID + ":5-3", UUID + ":1-99999999999999999999")
                .map(text -> {
                    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                    byte[] input = new byte[utf8.length + 1];
                    input[0] = (byte) (utf8.length / 2);
                    System.arraycopy(utf8, 0, input, 1, utf8.length);
                    return input;
                });
    }

    @MethodSource("positions")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void parse(byte[] input) {
        if (input.length == 0) {
            return;
        }
        String text = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
        Optional<GtidPosition> parsed = parseChecked(text);
        int cut = Math.min(input[0] & 0xFF, text.length());
        Optional<GtidPosition> left = parseChecked(text.substring(0, cut));
        Optional<GtidPosition> right = parseChecked(text.substring(cut));
        if (left.isPresent() && right.isPresent() && left.get().flavor() == right.get().flavor()) {
            GtidPosition merged = left.get().merge(right.get());
            require(merged.contains(left.get()) && merged.contains(right.get()),
                    merged + " merged from " + left.get() + " and " + right.get() + " lacks one of them");
            require(merged.missingCount(left.get()) == 0 && merged.missingCount(right.get()) == 0,
                    merged + " misses transactions of " + left.get() + " or " + right.get());
            require(parsed.isEmpty() || parsed.get().flavor() != merged.flavor() || parsed.get().equals(merged)
                    || text.substring(0, cut).isBlank() || text.substring(cut).isBlank(),
                    "'" + text + "' parses as " + parsed + " but its halves merge to " + merged);
        }
    }

    /** Parses {@code text}; a position that comes back must behave like one. */
    private static Optional<GtidPosition> parseChecked(String text) {
        Optional<GtidPosition> parsed = GtidPosition.parse(text);
        parsed.ifPresent(p -> {
            Optional<GtidPosition> again = GtidPosition.parse(p.toString());
            require(again.equals(Optional.of(p)), "'" + text + "' parses as " + p + ", which parses as " + again);
            require(p.contains(p) && p.missingCount(p) == 0, p + " does not contain itself");
            require(p.merge(p).equals(p), p + " merged with itself is " + p.merge(p));
            require(p.isEmpty() == p.toString().isEmpty(), p + " is empty: " + p.isEmpty());
        });
        return parsed;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
