package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.record.MemoryRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.clients.Librdkafka;
import io.sluice.filter.records.WireRecords;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static io.sluice.filter.clients.Librdkafka.each;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * KeyRouting judged by librdkafka (confluent-kafka): a consumer group on a virtual topic, with fetch sizes so small
 * that the broker cuts batches in every response, reads exactly its keys, including records larger than the fetch
 * size, and fetches past the other keys' records to the end of the partition.
 */
@ExtendWith(KafkaClusterExtension.class)
class LibrdkafkaKeyRoutingTest {

    private static final int PARTITION_FETCH_BYTES = 256;

    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: routing
                    type: KeyRouting
                    config:
                      hideRealTopics: true
                      routes:
                        - { virtual: "lr-$(t).live", topic: "lr-$(t)", key: "live/*" }
                defaultFilters: [routing]
                """);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aConsumerWithSmallFetchSizesReadsEveryRecordOfItsKeysAndNothingElse() throws Exception {
        io.sluice.testkit.Topics.createTopics(cluster.getKafkaClientConfiguration(), List.of(new NewTopic("lr-small", 1, (short) 1)));
        List<Map.Entry<String, String>> written = new ArrayList<>();
        List<String> expectedKeys = new ArrayList<>();
        List<Integer> expectedLengths = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            // Every fifth value is larger than the fetch size; every third key, the last one among them, is another's.
            String value = (i % 5 == 0 ? "x".repeat(3000) : "") + "v" + i;
            String key = i % 3 == 2 ? "secret/" + i : "live/" + i;
            written.add(Map.entry(key, key.startsWith("secret/") ? "SECRET-" + value : value));
            if (key.startsWith("live/")) {
                expectedKeys.add(key);
                expectedLengths.add(value.length());
            }
        }
        WireRecords.produceBatches(cluster.getBootstrapServers(), "lr-small", written);
        try (KafkaWire broker = new KafkaWire(Integer.parseInt(cluster.getBootstrapServers().split(":")[1]))) {
            MemoryRecords raw = (MemoryRecords) WireRecords.fetch(broker, "lr-small", 1, PARTITION_FETCH_BYTES).records();
            assertThat(raw.validBytes()).as("the broker cuts the last batch of a response this small").isLessThan(raw.sizeInBytes());
        }

        JsonNode consumed = Librdkafka.of(proxy.bootstrapServers())
                .with("max.partition.fetch.bytes", PARTITION_FETCH_BYTES)
                .with("fetch.max.bytes", 1000)
                .with("message.max.bytes", 1000)
                // Most fetches this small come back empty of this consumer's records; the broker's default wait for
                // more (500 ms) each time was 20 s of the test.
                .with("fetch.wait.max.ms", 20)
                .consume("lr-small.live", "lr-small-reader", expectedKeys.size(), 30);

        assertThat(each(consumed, "records", "key")).containsExactlyElementsOf(expectedKeys);
        assertThat(each(consumed, "records", "value")).extracting(String::length).containsExactlyElementsOf(expectedLengths);
        assertThat(each(consumed, "records", "value")).noneMatch(v -> v.contains("SECRET"));
        assertThat(consumed.get("endOfPartition").get("lr-small.live-0").asLong()).as("fetched past the last, another's, record").isEqualTo(30);
        assertThat(consumed.get("committed").get("lr-small.live-0").asLong()).isEqualTo(29);
        assertThat(consumed.get("fetchErrors")).isEmpty();
    }
}
