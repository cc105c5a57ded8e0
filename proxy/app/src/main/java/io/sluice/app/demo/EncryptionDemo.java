package io.sluice.app.demo;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The demo's encryption part: topics {@code secure.*} are encrypted with the in-process KMS; shows both views. */
public final class EncryptionDemo implements DemoPart {

    private static final String TOPIC = "secure.payments";

    @Override
    public String filterDefinitions() {
        return """
                - name: encrypt
                  type: RecordEncryption
                  config:
                    topics: ["secure.*"]
                    kek: demo-kek
                    kms: InProcessKmsService
                    kmsConfig:
                      keys: [demo-kek]
                """;
    }

    @Override
    public List<String> filters() {
        return List.of("encrypt");
    }

    @Override
    public void show(Demo demo, PrintStream out) throws Exception {
        String plaintext = "{\"card\":\"4111-1111-1111-1111\",\"amount\":42}";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, demo.proxyBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, demo.proxyBootstrap()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "order-1", plaintext)).get();
        }
        byte[] viaProxy = lastValue(demo.proxyBootstrap());
        byte[] direct = lastValue(demo.kafkaBootstrap());
        out.println("Record encryption (topics secure.*, AES-256-GCM, in-process KMS):");
        out.println("  produced through the proxy to '" + TOPIC + "': " + plaintext);
        out.println("  read through the proxy:   " + new String(viaProxy, StandardCharsets.UTF_8));
        out.println("  read from the broker:     " + printable(direct) + " (" + direct.length + " bytes of ciphertext)");
        if (!new String(viaProxy, StandardCharsets.UTF_8).equals(plaintext) || new String(direct, StandardCharsets.ISO_8859_1).contains("4111")) {
            throw new IllegalStateException("encryption self-check failed");
        }
        out.println("  try: kafka-console-consumer.sh --bootstrap-server " + demo.kafkaBootstrap() + " --topic " + TOPIC
                + " --from-beginning   # the broker's view");
    }

    private static byte[] lastValue(String bootstrap) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            consumer.seek(tp, Math.max(0, end - 1));
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    return r.value();
                }
            }
        }
        throw new IllegalStateException("no record read back from " + TOPIC + " at " + bootstrap);
    }

    private static String printable(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(48, bytes.length); i++) {
            char c = (char) (bytes[i] & 0xff);
            s.append(c >= 0x20 && c < 0x7f ? c : '.');
        }
        return s + (bytes.length > 48 ? "..." : "");
    }
}
