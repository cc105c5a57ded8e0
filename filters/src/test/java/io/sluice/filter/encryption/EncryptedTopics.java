package io.sluice.filter.encryption;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.sluice.proxy.testing.KafkaReads;

/** Encryption tests' dealings with the cluster itself, past the proxy: topics with their KEKs, raw reads and writes. */
final class EncryptedTopics {

    private final KafkaCluster cluster;

    EncryptedTopics(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * The RecordEncryption filter definition of these tests, as a {@code filterDefinitions} item at column 0: topics
     * {@code secure.*}, KEK {@code kek-$(topic)}, the {@link SwitchableKmsService}, and {@code more} config lines.
     */
    static String filterDefinition(String more) {
        return """
                - name: encrypt
                  type: RecordEncryption
                  config:
                    topics: ["secure.*"]
                    kek: "kek-$(topic)"
                    kms: SwitchableKmsService
                    kmsConfig:
                      keys: [sluice-test]
                """ + more.lines().map(line -> "    " + line + "\n").reduce("", String::concat);
    }

    /** A proxy config with just that filter. */
    static String proxyConfig(String more) {
        return "filterDefinitions:\n" + filterDefinition(more).lines().map(line -> "  " + line + "\n").reduce("", String::concat)
                + "defaultFilters: [encrypt]\n";
    }

    /** A new topic matching {@code secure.*}, and its KEK. */
    String secure(Map<String, String> configs) throws Exception {
        String topic = "secure." + UUID.randomUUID();
        create(topic, configs);
        SwitchableKmsService.createKey("kek-" + topic);
        return topic;
    }

    void create(String topic, Map<String, String> configs) throws Exception {
        io.sluice.testkit.Topics.createTopics(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), List.of(new NewTopic(topic, 1, (short) 1).configs(configs)));
    }

    /** Up to {@code expected} records of partition 0 as the broker stores them. */
    List<ConsumerRecord<byte[], byte[]>> readDirect(String topic, int expected) {
        return KafkaReads.fromStart(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), topic, expected,
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Written to the broker by a plain producer, as anyone with write access to the topic could. */
    void writeDirect(String topic, byte[] key, byte[] value, Header[] headers) throws Exception {
        try (KafkaProducer<byte[], byte[]> direct = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            direct.send(new ProducerRecord<>(topic, null, key, value, List.of(headers))).get();
        }
    }

    long endOffset(String topic) throws Exception {
        return KafkaReads.endOffset(cluster.getBootstrapServers(), topic);
    }
}
