package io.sluice.testkit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LocalKafkaTest {

    // The only broker start in the class: it costs seconds and a few hundred MB.
    @Test
    void startsARealBrokerThatRoundTripsARecordAndLeavesNothingBehind() throws Exception {
        long pid;
        Path workDir;
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            pid = kafka.pid();
            workDir = kafka.logFile().getParent();
            assertThat(ProcessHandle.of(pid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
            assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
            assertThat(kafka.logFile()).exists();
            // The broker's log is where its output goes, and it ran with our generated configuration.
            assertThat(Files.readString(kafka.logFile())).contains("Kafka Server started");

            RecordMetadata sent = produce(kafka.bootstrapServers(), "sluice-local-kafka", "k", "hello");
            assertThat(sent.partition()).isZero();

            List<ConsumerRecord<String, String>> records = consume(kafka.bootstrapServers(),
                    new TopicPartition("sluice-local-kafka", 0), 1);
            assertThat(records).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo("k");
                assertThat(r.value()).isEqualTo("hello");
            });
        }

        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(workDir).doesNotExist();
    }

    @Test
    void failureExcerptQuotesEarlyErrorsThenTheTail(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add("[t] INFO  [main] kafka.Kafka$ - starting");
        lines.add("[t] ERROR [main] kafka.network.DataPlaneAcceptor - Unable to start acceptor for PLAINTEXT");
        for (int i = 0; i < 100; i++) {
            lines.add("[t] INFO  [kafka-shutdown-hook] shutdown step " + i);
        }
        Path log = Files.write(dir.resolve("broker.log"), lines);

        String excerpt = LocalKafka.tail(log);

        assertThat(excerpt).contains("Unable to start acceptor for PLAINTEXT")
                .contains("shutdown step 99")
                .contains("shutdown step 60")
                .doesNotContain("shutdown step 59")
                .doesNotContain("starting");
    }

    @Test
    void optionsFillInDefaults() {
        LocalKafka.Options options = LocalKafka.Options.defaults();
        assertThat(options.workDir()).isNull();
        assertThat(options.port()).isZero();
        assertThat(options.heap()).isEqualTo("-Xmx512m");
        assertThat(options.extraBrokerProperties()).isEmpty();
        assertThat(options.startTimeout()).isPositive();
    }

    private static RecordMetadata produce(String bootstrap, String topic, String key, String value) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            return producer.send(new ProducerRecord<>(topic, key, value)).get(60, TimeUnit.SECONDS);
        }
    }

    private static List<ConsumerRecord<String, String>> consume(String bootstrap, TopicPartition partition, int count) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        return records;
    }
}
