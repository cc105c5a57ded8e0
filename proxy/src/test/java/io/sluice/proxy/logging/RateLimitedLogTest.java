package io.sluice.proxy.logging;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import static org.assertj.core.api.Assertions.assertThat;

/** A flood of the same event logs one line per interval, and the next line says how many were left out. */
class RateLimitedLogTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger("rate-limited-log-test");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @BeforeEach
    void attach() {
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(appender);
    }

    @Test
    void logsOncePerIntervalAndCountsWhatItLeftOut() {
        RateLimitedLog log = new RateLimitedLog(logger, Duration.ofSeconds(1));

        for (int i = 0; i < 100; i++) {
            log.warn("refused {}", i);
        }

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused 0");
        sleepPast(Duration.ofSeconds(1));
        log.warn("refused {}", 100);

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("refused 0", "refused 100 (99 more like this since the last such line)");
    }

    private static void sleepPast(Duration interval) {
        try {
            Thread.sleep(interval.toMillis() + 100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
