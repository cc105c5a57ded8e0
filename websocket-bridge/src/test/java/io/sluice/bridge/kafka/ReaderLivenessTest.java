package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.config.KafkaConfig;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader thread that dies anyway (an error no record's containment catches: the JVM's own) makes the node not live,
 * so that it is restarted: before, only readiness changed, and a node whose reader had stopped stayed up serving no
 * live record. A reader stopped by the node's close stays live.
 */
@ExtendWith(KafkaClusterExtension.class)
class ReaderLivenessTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @Test
    void aReaderThatDiesIsNotLiveAndOneThatIsClosedIs() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            KafkaConfig config = new KafkaConfig(cluster.getBootstrapServers(), Map.of(), Duration.ofSeconds(1), null);
            RecordSink dies = new RecordSink() {
                @Override
                public void started(Map<TopicPartition, Long> startOffsets) {
                }

                @Override
                public void accept(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions) {
                    if (!records.isEmpty()) {
                        throw new InternalError("the JVM's own failure, on the reader thread");
                    }
                }

                @Override
                public void idle() {
                }
            };
            KafkaReader dying = new KafkaReader(config, List.of(topic), new PartitionEpochs(), dies, "liveness-dies");
            KafkaReader closed = new KafkaReader(config, List.of(topic), new PartitionEpochs(), dies, "liveness-closed");
            try {
                dying.start();
                assertThat(dying.awaitAssigned(Duration.ofSeconds(60))).isTrue();
                assertThat(dying.alive()).isTrue();
                kafka.send(topic, "k", "v");
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (dying.alive() && System.nanoTime() < deadline) {
                    Thread.sleep(20); // waiting for the condition, bounded
                }
                assertThat(dying.alive()).as("a reader whose thread died").isFalse();
                assertThat(dying.lastError()).contains("InternalError");

                closed.start();
                assertThat(closed.awaitAssigned(Duration.ofSeconds(60))).isTrue();
                closed.close();
                assertThat(closed.alive()).as("a reader the node closed").isTrue();
            }
            finally {
                dying.close();
                closed.close();
            }
        }
    }

    /**
     * Through a node: its reader thread ended by something other than the node's stop (here an interrupt, which ends the
     * consumer's poll) turns /livez and /healthz to 503. Before, they answered 200 whatever the reader did.
     */
    @Test
    void aNodeWhoseReaderDiedIsNotLive() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-reader-dies", "topics: " + topic)) {
                assertThat(bridge.management("/livez")).isEqualTo(200);
                Thread reader = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("sluice-bridge-reader-node-reader-dies")).findFirst().orElseThrow();
                reader.interrupt();
                reader.join(Duration.ofSeconds(30).toMillis());
                assertThat(reader.isAlive()).isFalse();
                assertThat(bridge.management("/livez")).isEqualTo(503);
                assertThat(bridge.management("/healthz")).isEqualTo(503);
            }
        }
    }
}
