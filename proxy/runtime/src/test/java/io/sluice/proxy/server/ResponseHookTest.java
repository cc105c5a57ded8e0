package io.sluice.proxy.server;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.proxy.testing.filters.AnswerListOffsets;
import io.sluice.proxy.testing.filters.ListOffsetsHook;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Response hooks ({@code RequestFilterResultBuilder.withResponseHook}) with real kafka-clients against a real broker. The
 * test filter {@link ListOffsetsHook} is a request filter only: nothing in the chain asks for ListOffsets responses to be
 * decoded, so the hook's attachment alone must make the proxy decode them.
 */
@ExtendWith(KafkaClusterExtension.class)
class ResponseHookTest {

    static KafkaCluster cluster;

    @Test
    void hookChangesTheResponseTheClientSeesEvenWhenNoFilterAsksForItDecoded() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: hook
                    type: ListOffsetsHook
                    config:
                      mode: add
                defaultFilters: [hook]
                """)) {
            String topic = createTopicWithOneRecord(proxy);
            assertThat(latestOffset(proxy, topic)).isEqualTo(1 + ListOffsetsHook.ADDED);
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isZero();
        }
    }

    @Test
    void hookRunsBeforeTheFiltersOwnOnResponse() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: hook
                    type: ListOffsetsHook
                    config:
                      mode: add
                      doubleOnResponse: true
                defaultFilters: [hook]
                """)) {
            String topic = createTopicWithOneRecord(proxy);
            // (1 + 1000) * 2: the hook first; its own onResponse second would give 1 * 2 + 1000.
            assertThat(latestOffset(proxy, topic)).isEqualTo((1 + ListOffsetsHook.ADDED) * 2);
        }
    }

    @Test
    void hookRunsOnTheAnswerOfAFilterNearerTheBrokerThatShortCircuits() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: hook
                    type: ListOffsetsHook
                  - name: answer
                    type: AnswerListOffsets
                defaultFilters: [hook, answer]
                """)) {
            String topic = createTopicWithOneRecord(proxy);
            assertThat(latestOffset(proxy, topic)).isEqualTo(AnswerListOffsets.OFFSET + ListOffsetsHook.ADDED);
        }
    }

    @Test
    void hookThatFailsClosesTheConnectionAndCountsAFilterError() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: hook
                    type: ListOffsetsHook
                    config:
                      mode: fail
                defaultFilters: [hook]
                """)) {
            String topic = createTopicWithOneRecord(proxy);
            Logger logger = (Logger) LoggerFactory.getLogger(ProxyConnection.class);
            ListAppender<ILoggingEvent> appender = new ListAppender<>();
            appender.start();
            logger.addAppender(appender);
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                wire.socket().setSoTimeout(10_000);
                wire.send(ApiKeys.LIST_OFFSETS, (short) 7, FilterChainTest.listOffsets(topic));
                assertThat(wire.closedByPeer()).as("connection closed by the proxy, no response first").isTrue();
            } finally {
                logger.detachAppender(appender);
            }
            // The filter's failure closes the connection, counted before the close, not the failed write it leaves.
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isEqualTo(1);
            assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(m -> m.contains("closing connection: filter hook response hook (LIST_OFFSETS) failed"))
                    .noneMatch(m -> m.contains("client connection failed"));
        }
    }

    @Test
    void hookThatNeverCompletesIsTimedOutAndTheSocketCloses() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 1s
                filterDefinitions:
                  - name: hook
                    type: ListOffsetsHook
                    config:
                      mode: never
                defaultFilters: [hook]
                """)) {
            String topic = createTopicWithOneRecord(proxy);
            FilterChainTest.assertListOffsetsClosesItsConnectionAfterOneSecond(proxy, topic);
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isEqualTo(1);
        }
    }

    // ---- helpers ----

    private static ProxyFixture withFilters(String yaml) {
        return ProxyFixture.start(cluster.getBootstrapServers(), "", yaml);
    }

    /** A topic holding one record, written past the proxy (so its end offset is 1 whatever the filters do). */
    private static String createTopicWithOneRecord(ProxyFixture proxy) throws Exception {
        String topic = "hook-" + UUID.randomUUID();
        Map<String, Object> direct = Map.of("bootstrap.servers", cluster.getBootstrapServers());
        io.sluice.testkit.Topics.createTopics(direct, List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(direct, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get();
        }
        return topic;
    }

    private static long latestOffset(ProxyFixture proxy, String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(proxy.clientConfig())) {
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition).get().offset();
        }
    }
}
