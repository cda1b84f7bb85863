package dev.sluice.server.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import dev.sluice.server.config.ProcessConfig.LogFormat;
import java.util.Iterator;
import org.slf4j.LoggerFactory;

/**
 * Switches the process's log lines to the format the configuration asks for. logback.xml sets up
 * the text format, since lines may come before the configuration is read; {@code log-format: json}
 * then gives the same appenders a {@link JsonLogEncoder}, so the levels and targets stay those of
 * logback.xml. Programmatic rather than a second logback.xml: which file applies would otherwise be
 * decided before the configuration file is read.
 */
public final class LogOutput {
    private LogOutput() {
    }

    /** Applies {@code format} to every appender of the root logger that writes a stream. */
    public static void use(LogFormat format) {
        if (format != LogFormat.JSON || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
            if (it.next() instanceof OutputStreamAppender<ILoggingEvent> stream) {
                JsonLogEncoder json = new JsonLogEncoder();
                json.setContext(context);
                json.start();
                // The appender writes its encoder's header when started: stop, swap, start again.
                stream.stop();
                stream.setEncoder(json);
                stream.start();
            }
        }
    }
}
