package io.sluice.logging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

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
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(appender);
        logger.setLevel(null);
    }

    @Test
    void logsOncePerIntervalAndCountsWhatItLeftOut() {
        RateLimitedLog log = new RateLimitedLog(logger, Duration.ofSeconds(1));

        for (int i = 0; i < 100; i++) {
            log.log("refused {}", i);
        }

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused 0");
        assertThat(appender.list).extracting(ILoggingEvent::getLevel).containsOnly(ch.qos.logback.classic.Level.WARN);
        sleepPast(Duration.ofSeconds(1));
        log.log("refused {}", 100);

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("refused 0", "refused 100 (99 more like this since the last such line)");
    }

    @Test
    void logsAtItsLevelAndALineAfterAQuietIntervalCarriesNoCount() {
        RateLimitedLog log = new RateLimitedLog(logger, Level.INFO, Duration.ofMillis(200));

        log.log("refused {}", "a");
        sleepPast(Duration.ofMillis(200));
        log.log("refused {}", "b");

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("refused a", "refused b");
        assertThat(appender.list).extracting(ILoggingEvent::getLevel).containsOnly(ch.qos.logback.classic.Level.INFO);
    }

    @Test
    void concurrentCallersLogOneLineAndLoseNoCount() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, Duration.ofSeconds(1));
        int threads = 4;
        int each = 2_500;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < each; i++) {
                    log.log("refused");
                }
            });
            thread.start();
            started.add(thread);
        }
        start.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        assertThat(appender.list).hasSize(1);
        sleepPast(Duration.ofSeconds(1));
        log.log("refused");

        // A caller that lost the race for the first line may be counted in it ("refused (1 more ...)"): what must hold is
        // two lines, and every call either a line or counted in one.
        List<String> lines = appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).hasSize(2).allMatch(line -> line.startsWith("refused"));
        long counted = lines.stream().mapToLong(line -> line.equals("refused") ? 0
                : Long.parseLong(line.replaceAll("refused \\((\\d+) more like this since the last such line\\)", "$1"))).sum();
        assertThat(counted + lines.size()).isEqualTo(threads * each + 1);
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
