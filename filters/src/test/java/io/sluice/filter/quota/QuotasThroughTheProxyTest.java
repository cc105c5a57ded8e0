package io.sluice.filter.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.clients.Librdkafka;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.proxy.testing.KafkaReads;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quotas through the real proxy, behind JwtAuth, in front of a real broker, judged by clients we did not write: a
 * kafka-clients producer sending as fast as it can is held near its produce quota with no error and no record lost,
 * and reports the throttle in its own {@code produce-throttle-time-*} metrics; a librdkafka consumer over its fetch
 * quota reads every record and reports the throttle through its {@code throttle_cb}. Limits are small (100 KB/s) and
 * the traffic a few seconds' worth, with a short window so the burst allowed at the start is small too.
 */
@ExtendWith(KafkaClusterExtension.class)
class QuotasThroughTheProxyTest {

    private static final String TOPIC = "quota-flood";
    /**
     * 600 KB at 100 KB/s: about 6 s. The producer is done when its last records are acknowledged, before it sits out the
     * throttle that answer carries (at most {@code samples × window}, 1 s here), so the measured rate runs up to
     * 6 / (6 − 1) = 1.2 times the limit; with 300 records (3 s) that was 1.5 times, over the bound below, whenever the
     * last throttle was long (seen at a load average of 6).
     */
    private static final int RECORDS = 600;
    private static final int VALUE_CHARS = 1000;
    private static final long LIMIT = 100_000;
    private static final Map<String, Object> GRANT = Map.of("topics", Map.of("quota-*", List.of("read", "write")), "groups", List.of("quota-*"));

    static KafkaCluster cluster;

    @Test
    void aFloodingProducerIsHeldNearItsQuotaAndAConsumerOverItsFetchQuotaIsThrottledAndNothingIsLost() throws Exception {
        try (JwtProxy proxy = JwtProxy.start(cluster, """
                - name: quotas
                  type: Quotas
                  config:
                    window: 100ms
                    samples: 10
                    overrides:
                      flooder: {produceBytesPerSecond: %d}
                      reader: {fetchBytesPerSecond: %d}
                """.formatted(LIMIT, LIMIT), List.of("jwt", "quotas"))) {
            proxy.createTopics(TOPIC);

            Map<String, Object> config = new HashMap<>(proxy.clientConfig(JwtProxy.token("flooder", Duration.ofMinutes(10), GRANT)));
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            long bytes = 0;
            long started = System.nanoTime();
            double throttleMax;
            double throttleAvg;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < RECORDS; i++) {
                    String value = String.format("%05d", i) + "x".repeat(VALUE_CHARS - 5);
                    bytes += value.length();
                    sent.add(producer.send(new ProducerRecord<>(TOPIC, value)));
                }
                producer.flush();
                for (Future<RecordMetadata> f : sent) {
                    f.get(); // no error: a throttled producer waits, it is not refused
                }
                throttleMax = metric(producer.metrics(), "produce-throttle-time-max");
                throttleAvg = metric(producer.metrics(), "produce-throttle-time-avg");
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            double rate = bytes / seconds;
            System.out.printf("flooder: %d bytes in %.2f s = %.0f B/s against %d B/s; produce-throttle-time max %.0f ms, avg %.1f ms%n", bytes,
                    seconds, rate, LIMIT, throttleMax, throttleAvg);
            // A busy machine can only make it slower: the bound that matters is the upper one. The allowance is one
            // window's worth at the start, the throttle owed at the end is not waited for (RECORDS), and the batches'
            // own overhead counts too.
            assertThat(rate).as("held near the limit").isLessThan(LIMIT * 1.3);
            assertThat(throttleMax).as("kafka-clients saw throttle_time_ms").isPositive();
            assertThat(proxy.metric("sluice_quota_throttle_seconds_total", "principal=\"flooder\"")).isPositive();
            assertThat(proxy.metric("sluice_quota_throttle_seconds_total", "kind=\"produce\"")).isPositive();

            List<ConsumerRecord<String, String>> written = KafkaReads.all(cluster.getKafkaClientConfiguration(), TOPIC,
                    new StringDeserializer(), new StringDeserializer());
            assertThat(written).as("every record, once").hasSize(RECORDS);
            assertThat(written.stream().map(r -> r.value().substring(0, 5)).distinct().count()).isEqualTo(RECORDS);

            JsonNode consumed = Librdkafka.of(proxy.bootstrapServers()).token(JwtProxy.token("reader", Duration.ofMinutes(10), GRANT))
                    .consumeCounting(TOPIC, "quota-readers", RECORDS, RECORDS);
            assertThat(consumed.get("records").get("count").asInt()).isEqualTo(RECORDS);
            assertThat(consumed.get("records").get("distinctOffsets").asInt()).as("none lost, none twice").isEqualTo(RECORDS);
            assertThat(consumed.get("fetchErrors")).isEmpty();
            assertThat(consumed.get("clientErrors")).isEmpty();
            assertThat(consumed.get("throttles")).as("librdkafka's throttle_cb saw throttle_time_ms").isNotEmpty();
            assertThat(proxy.metric("sluice_quota_throttle_seconds_total", "kind=\"fetch\"")).isPositive();
            assertThat(proxy.metric("sluice_quota_bytes_total", "principal=\"reader\"")).isGreaterThanOrEqualTo(RECORDS * VALUE_CHARS);
        }
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElseThrow();
    }
}
