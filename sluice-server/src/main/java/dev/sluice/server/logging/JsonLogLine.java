package dev.sluice.server.logging;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * One log event as one line of JSON ({@code log-format: json}): what log collectors (Loki, Fluent
 * Bit, Vector, journald's JSON parsers) read without a pattern of their own. The keys are fixed —
 * {@code time} (UTC, ISO-8601 with milliseconds), {@code level}, {@code logger}, {@code thread},
 * {@code message} and, when the event carries one, {@code exception} (the stack trace as text) —
 * and line breaks inside values are escaped, so one event is always exactly one line.
 *
 * @param exception the throwable's stack trace as it would be printed; empty when there is none
 */
public record JsonLogLine(Instant time, String level, String logger, String thread, String message,
        Optional<String> exception) {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    /** The line, ending in {@code \n}. */
    public String format() {
        StringBuilder b = new StringBuilder(128 + message.length());
        b.append('{');
        field(b, "time", TIME.format(time)).append(',');
        field(b, "level", level).append(',');
        field(b, "logger", logger).append(',');
        field(b, "thread", thread).append(',');
        field(b, "message", message);
        exception.ifPresent(e -> field(b.append(','), "exception", e));
        return b.append("}\n").toString();
    }

    private static StringBuilder field(StringBuilder b, String key, String value) {
        b.append('"').append(key).append("\":\"");
        JsonStringEncoder.getInstance().quoteAsString(value, b);
        return b.append('"');
    }
}
