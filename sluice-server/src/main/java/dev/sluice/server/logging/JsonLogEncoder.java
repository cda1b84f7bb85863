package dev.sluice.server.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/** Logback's side of {@code log-format: json}: each event written as one {@link JsonLogLine}. */
public final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {
    private static final byte[] NOTHING = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        return new JsonLogLine(Instant.ofEpochMilli(event.getTimeStamp()), event.getLevel().toString(),
                event.getLoggerName(), event.getThreadName(), event.getFormattedMessage(),
                thrown == null ? Optional.empty() : Optional.of(ThrowableProxyUtil.asString(thrown)))
                .format().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] footerBytes() {
        return NOTHING;
    }
}
