package io.sluice.bridge.sse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.RoundRobinRelay;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23's failover: two nodes on one Kafka behind a round-robin TCP front ({@link RoundRobinRelay}, a load balancer
 * without stickiness), a stream of one endpoint pattern over a two-partition topic read by {@code java.net.http}
 * ({@link SseClient}) while a producer publishes without pause. The node the stream is on is stopped mid-stream; the
 * client reconnects through the front with its last id in {@code Last-Event-ID}, as a browser's {@code EventSource}
 * does, and lands on the other node. What it received, per partition, is then exactly what Kafka holds: every
 * (epoch, seq) once, in order, none missing.
 */
@ExtendWith(KafkaClusterExtension.class)
class SseFailoverTest {

    private static final int RECORDS = 300;
    /** Messages read on the first node before it is stopped: mid-stream, the producer far from done. */
    private static final int KILL_AFTER = 40;
    /** A browser waits the stream's {@code retry} before reconnecting; this keeps the producer ahead of the client meanwhile. */
    private static final long RECONNECT_DELAY_MILLIS = 300;

    private static final Pattern NODE = Pattern.compile("\"type\":\"connected\",\"node\":\"([^\"]+)\"");

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    /** A received message: where it is in Kafka's numbering, and which produced record it carries. */
    private record Received(String epoch, long seq, int n) {
    }

    @Test
    void stoppingTheNodeAStreamIsOnMidStreamResumesOnTheOtherThroughTheFrontWithNoGapAndNoDuplicate() throws Exception {
        String topic = kafka.createTopic(2);
        String token = TestAuthenticator.token("fay", topic + "/*", "");
        String query = "endpoint=/" + topic + "/*";
        Map<String, BridgeFixture> nodes = new HashMap<>();
        nodes.put("node-a", BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic));
        nodes.put("node-b", BridgeFixture.start(cluster.getBootstrapServers(), "node-b", "topics: " + topic));
        List<InetSocketAddress> targets = List.of(new InetSocketAddress("127.0.0.1", nodes.get("node-a").port()),
                new InetSocketAddress("127.0.0.1", nodes.get("node-b").port()));
        Set<String> stopped = ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> producer = null;
        try (RoundRobinRelay front = new RoundRobinRelay(targets)) {
            List<Received> received = new ArrayList<>();
            List<String> gaps = new ArrayList<>();
            List<String> streamNodes = new ArrayList<>();
            String lastId = null;
            boolean quiet = false;
            while (received.size() < RECORDS && !quiet && streamNodes.size() < 5) {
                if (lastId != null) {
                    Thread.sleep(RECONNECT_DELAY_MILLIS);
                }
                try (SseClient stream = SseClient.open(front.port(), query, token, lastId)) {
                    assertThat(stream.status).as("stream %d through the front", streamNodes.size() + 1).isEqualTo(200);
                    String node = stream.expect("connected").json().get("node").asText();
                    assertThat(stopped).as("the front skips the stopped node").doesNotContain(node);
                    streamNodes.add(node);
                    stream.expect("subscribed");
                    if (producer == null) {
                        // Every record produced from now on is owed to this client.
                        producer = CompletableFuture.runAsync(() -> produce(topic));
                    }
                    StreamEnd end = read(stream, received, gaps, lastId, () -> {
                        if (stopped.isEmpty() && received.size() >= KILL_AFTER) {
                            stopped.add(node);
                            nodes.get(node).close();
                            // Other clients connecting meanwhile: one in the live node's turn, one in the stopped node's,
                            // which the front must skip (java.net.http would hide a refusal by retrying, so these are
                            // plain sockets).
                            String live = nodes.keySet().stream().filter(n -> !n.equals(node)).findFirst().orElseThrow();
                            assertThat(nodeOfAnotherClient(front, query, token)).isEqualTo(live);
                            assertThat(nodeOfAnotherClient(front, query, token)).as("the stopped node's turn, skipped").isEqualTo(live);
                        }
                    });
                    lastId = end.lastId();
                    quiet = end.quiet();
                }
            }
            producer.get(60, TimeUnit.SECONDS);

            assertThat(gaps).as("gap events").isEmpty();
            assertEqualsKafka(topic, received);
            assertThat(streamNodes).as("one stream on each node: the first stopped under it").hasSize(2).doesNotHaveDuplicates();
            assertThat(stopped).containsExactly(streamNodes.get(0));
            // The second node resumed from the id: what was published while the client was away came from its recovery.
            assertThat(nodes.get(streamNodes.get(1)).metric("sluice_bridge_recovery_requests_total", "")).isPositive();
        } finally {
            if (producer != null) {
                producer.cancel(true);
            }
            nodes.values().forEach(BridgeFixture::close);
        }
    }

    /** The node a new stream through the front reaches, from its {@code connected} event, read off a plain socket. */
    private static String nodeOfAnotherClient(RoundRobinRelay front, String query, String token) {
        try (Socket other = new Socket("127.0.0.1", front.port())) {
            other.setSoTimeout(30_000);
            other.getOutputStream().write(("GET /ws/sse?" + query + " HTTP/1.1\r\nHost: front\r\nAuthorization: Bearer " + token + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            StringBuilder seen = new StringBuilder();
            byte[] buffer = new byte[4096];
            Matcher node = NODE.matcher("");
            while (seen.length() < 16_384 && !node.reset(seen).find()) {
                int n = other.getInputStream().read(buffer);
                if (n < 0) {
                    throw new AssertionError("the front closed the connection without an answer; got: " + seen);
                }
                seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
            return node.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How a stream's reading ended: the id of its last positioned event, and whether it went quiet (30 s without an event). */
    private record StreamEnd(String lastId, boolean quiet) {
    }

    /**
     * Reads {@code stream} until it ends (the node stopped: a {@code close} event, then the end), until every record
     * arrived, or until nothing came for 30 s (records missing: the comparison with Kafka says which), calling
     * {@code afterMessage} after each message.
     */
    private static StreamEnd read(SseClient stream, List<Received> received, List<String> gaps, String lastId, Runnable afterMessage) {
        String id = lastId;
        while (received.size() < RECORDS) {
            SseClient.Event e;
            try {
                e = stream.next();
            } catch (AssertionError quiet) {
                return new StreamEnd(id, true);
            }
            if (SseClient.isEnd(e)) {
                return new StreamEnd(id, false);
            }
            if (e.id() != null) {
                id = e.id();
            }
            switch (e.type()) {
                case "message" -> {
                    received.add(new Received(e.json().get("epoch").asText(), e.json().get("seq").asLong(), e.json().get("payload").get("n").asInt()));
                    afterMessage.run();
                }
                case "gap" -> gaps.add(e.data());
                default -> {
                    // close (the stopped node's last event), heartbeats are comments
                }
            }
        }
        return new StreamEnd(id, false);
    }

    /** Publishes RECORDS records over both partitions, without pause, each acknowledged before the next. */
    private static void produce(String topic) {
        try {
            for (int n = 0; n < RECORDS; n++) {
                kafka.send(topic, "k" + (n % 7), "{\"n\":" + n + "}");
                Thread.sleep(5);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Per partition, the (epoch, seq) sequence received is the partition's offsets as kafka-clients reads them back:
     * no gap, no duplicate, in order; and every message carries the record at its position.
     */
    private static void assertEqualsKafka(String topic, List<Received> received) {
        Map<Integer, ConsumerRecord<byte[], byte[]>> byN = new HashMap<>();
        Map<Integer, List<Long>> produced = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readBack(topic)) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            int n = Integer.parseInt(value.substring(value.indexOf(':') + 1, value.indexOf('}')));
            byN.put(n, r);
            produced.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset());
        }
        assertThat(produced).as("records on both partitions").hasSize(2);
        assertThat(byN).hasSize(RECORDS);

        Map<Integer, List<Long>> got = new TreeMap<>();
        Map<Integer, Set<String>> epochs = new TreeMap<>();
        for (Received m : received) {
            ConsumerRecord<byte[], byte[]> r = byN.get(m.n());
            assertThat(r).as("message n=%d was produced", m.n()).isNotNull();
            assertThat(m.seq()).as("seq of n=%d", m.n()).isEqualTo(r.offset());
            got.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(m.seq());
            epochs.computeIfAbsent(r.partition(), p -> ConcurrentHashMap.newKeySet()).add(m.epoch());
        }
        assertThat(epochs.values()).as("one epoch per partition, the same on both nodes").allSatisfy(e -> assertThat(e).hasSize(1));
        for (Map.Entry<Integer, List<Long>> p : produced.entrySet()) {
            assertThat(got.get(p.getKey())).as("partition %d: seqs received (no gap, no duplicate, in order)", p.getKey())
                    .containsExactlyElementsOf(p.getValue());
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readBack(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long end = consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= end;
            });
            return records;
        }
    }
}
