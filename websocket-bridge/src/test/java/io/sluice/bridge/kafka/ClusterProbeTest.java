package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The probe's line that the node lost Kafka and readiness read one clock: once the last answer is older than the
 * limit, the line has been logged, whether or not a question has failed yet (one waits up to its timeout). The
 * question's timeout here is far longer than the limit, so a line that waited for a failure would not be there.
 */
@ExtendWith(KafkaClusterExtension.class)
class ClusterProbeTest {

    private static final Duration LIMIT = Duration.ofSeconds(2);

    @Test
    void theLostLineIsLoggedByTheTimeReadinessSeesTheSilence(KafkaCluster cluster) {
        Logger probeLogs = (Logger) LoggerFactory.getLogger(ClusterProbe.class);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        probeLogs.addAppender(logs);
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.getBootstrapServers()));
        try {
            ClusterProbe probe = new ClusterProbe(admin, Duration.ofSeconds(120), LIMIT);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                probe.maybeAsk();
                return probe.sinceLastAnswer() != null;
            });
            cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);

            // Readiness's own test: the age of the last answer, past the limit (the reader keeps asking meanwhile).
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                probe.maybeAsk();
                return probe.sinceLastAnswer().compareTo(LIMIT) > 0;
            });
            assertThat(lines(logs, Level.WARN)).as("WARN lines once readiness sees %s without an answer", LIMIT)
                    .singleElement().asString().startsWith("Kafka has not answered for ")
                    .endsWith("the node reports not ready until it does");

            cluster.startNodes(n -> true);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                probe.maybeAsk();
                return lines(logs, Level.INFO).stream().anyMatch(line -> line.startsWith("Kafka answers again after "));
            });
            assertThat(lines(logs, Level.WARN)).as("one WARN line per outage").hasSize(1);
        }
        finally {
            admin.close(Duration.ZERO);
            probeLogs.detachAppender(logs);
        }
    }

    private static List<String> lines(ListAppender<ILoggingEvent> logs, Level level) {
        synchronized (logs) { // AppenderBase appends under the appender's lock
            return logs.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
