package io.sluice.bench.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalKafka;
import io.sluice.testkit.bench.BenchTopics;

class HaproxyRelayTest {

    private static final int RECORDS = 20_000;

    @Test
    void configHasOneTcpFrontendPerBrokerPort() {
        String config = HaproxyConfig.render(List.of(new HaproxyConfig.Route(30001, "127.0.0.1:40001"), new HaproxyConfig.Route(30002, "127.0.0.1:40002")));

        assertThat(config).contains("mode tcp")
                .contains("frontend broker0\n    bind 127.0.0.1:30001\n    default_backend broker0")
                .contains("backend broker0\n    server broker0 127.0.0.1:40001")
                .contains("frontend broker1\n    bind 127.0.0.1:30002")
                .contains("server broker1 127.0.0.1:40002");
    }

    @Test
    void badRoutesNameTheirField() {
        assertThatThrownBy(() -> new HaproxyConfig.Route(0, "127.0.0.1:1")).hasMessageContaining("listenPort");
        assertThatThrownBy(() -> new HaproxyConfig.Route(1, "nowhere")).hasMessageContaining("upstream");
        assertThatThrownBy(() -> HaproxyConfig.render(List.of())).hasMessageContaining("routes");
        assertThatThrownBy(() -> new RelayListener(1, 2, 70000, 4)).hasMessageContaining("relayPort");
    }

    @Test
    void relayListenerAdvertisesTheRelayBesideThePlaintextListener() {
        Map<String, String> props = new RelayListener(20001, 20002, 20003, 20004).brokerProperties();

        assertThat(props.get("listeners")).isEqualTo("PLAINTEXT://127.0.0.1:20001,CONTROLLER://127.0.0.1:20002,RELAY://127.0.0.1:20003");
        assertThat(props.get("advertised.listeners")).isEqualTo("PLAINTEXT://127.0.0.1:20001,RELAY://127.0.0.1:20004");
        assertThat(props.get("controller.quorum.voters")).isEqualTo("1@127.0.0.1:20002");
    }

    /** The bench's relay target end to end: clients bootstrapped at haproxy are sent back to it by Metadata, and their records go through it. */
    @Test
    void clientsThroughTheRelayStayOnItAndItsCpuIsReadable() throws Exception {
        Optional<Path> haproxy = HaproxyRelay.executable();
        assumeTrue(haproxy.isPresent(), "haproxy not installed");
        int base = FreePorts.block(4);
        RelayListener listener = new RelayListener(base, base + 1, base + 2, base + 3);
        try (LocalKafka kafka = LocalKafka.start(new LocalKafka.Options(null, listener.brokerPort(), "-Xmx384m", listener.brokerProperties(), null));
             HaproxyRelay relay = HaproxyRelay.start(haproxy.get(), List.of(new HaproxyConfig.Route(listener.advertisedPort(), listener.relayUpstream())))) {
            String bootstrap = "127.0.0.1:" + listener.advertisedPort();
            long cpuBefore = CpuSampler.processCpuNanos(relay.pid());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertThat(admin.describeCluster().nodes().get()).extracting(Node::port).containsExactly(listener.advertisedPort());
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
                assertThat(admin.describeCluster().nodes().get()).as("the broker's own listener still advertises itself")
                        .extracting(Node::port).containsExactly(listener.brokerPort());
            }
            String topic = "relayed";
            BenchTopics.create(kafka.bootstrapServers(), topic, 1);
            // 20 MB through and back: enough for the kernel's 10 ms CPU ticks to see haproxy's work.
            String padding = "x".repeat(1000);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                    new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(topic, i + padding));
                }
                producer.flush();
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                    new StringDeserializer(), new StringDeserializer())) {
                TopicPartition tp = new TopicPartition(topic, 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (seen.size() < RECORDS && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        seen.add(r.value().substring(0, r.value().length() - padding.length()));
                    }
                }
            }
            assertThat(seen).hasSize(RECORDS).startsWith("0").endsWith(Integer.toString(RECORDS - 1));
            assertThat(CpuSampler.processCpuNanos(relay.pid())).as("haproxy's utime+stime moved with the bytes").isGreaterThan(cpuBefore);
        }
    }
}
