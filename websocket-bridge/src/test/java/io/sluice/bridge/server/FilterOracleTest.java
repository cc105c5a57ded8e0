package io.sluice.bridge.server;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.kafka.PartitionEpochs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A randomized oracle for subscription filters and field lists (issue 22): random records (JSON objects and arrays with
 * missing fields, nulls, nested objects, exotic number spellings; text, binary, tombstones; random headers) and random
 * filters and field lists for sixteen clients on two nodes, some sharing a selection, some with none, some with
 * overlapping subscriptions. The expected stream of every client is recomputed from the topic, read back with a plain
 * KafkaConsumer, by {@link OracleSelection} (the documents' semantics, none of the node's filter code), and compared
 * exactly: (epoch, seq, endpoint, format, payload, timestamp), in order per epoch, nothing missing, extra or twice.
 *
 * <p>Half way through, node A stops while records keep coming; its clients reconnect to node B with their last positions
 * and the same selections, and recover from B's cache (a small one, three messages per endpoint) or from the Kafka log.
 * Their whole stream (before and after the move) must still equal the oracle's.
 *
 * <p>The seed is printed; run again with {@code -Dsluice.oracle.seed=<seed>} to replay the same records and selections
 * (the moment of the stop, in records, is part of it; thread timing is not, and does not change the expectation).
 */
@ExtendWith(KafkaClusterExtension.class)
class FilterOracleTest {

    private static final long DEFAULT_SEED = 22_2022L;
    private static final int PARTITIONS = 3;
    private static final int BEFORE = 100;
    private static final int DURING = 120;
    private static final int AFTER = 60;

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    private record Sub(String pattern, JsonNode filter, ArrayNode fields) {
        boolean covers(String endpoint) {
            return pattern.endsWith("/*") ? endpoint.startsWith(pattern.substring(0, pattern.length() - 1)) : pattern.equals(endpoint);
        }

        /** The per-connection rule: exact first, then prefixes from the longest. */
        int rank() {
            return pattern.endsWith("/*") ? -pattern.length() : Integer.MIN_VALUE;
        }

        void addTo(ObjectNode subscribe) {
            subscribe.put("endpoint", pattern);
            if (filter != null) {
                subscribe.set("filter", filter);
            }
            if (fields != null) {
                subscribe.set("fields", fields);
            }
        }

        @Override
        public String toString() {
            return pattern + (filter == null ? "" : " filter=" + filter) + (fields == null ? "" : " fields=" + fields);
        }
    }

    private static final class Client {
        final int id;
        final boolean onA;
        final List<Sub> subs;
        WsClient ws;
        final List<JsonNode> messages = new ArrayList<>();
        final List<JsonNode> anomalies = new ArrayList<>();
        final Map<String, Long> positions = new HashMap<>();

        Client(int id, boolean onA, List<Sub> subs) {
            this.id = id;
            this.onA = onA;
            this.subs = subs;
        }

        void take(JsonNode m) {
            String type = m.path("type").asText();
            if (type.equals("message")) {
                messages.add(m);
                positions.merge(m.get("epoch").asText(), m.get("seq").asLong(), Math::max);
            }
            else {
                anomalies.add(m);
            }
        }

        void drain() {
            ws.drainNow().forEach(this::take);
        }

        @Override
        public String toString() {
            return "client " + id + (onA ? " (node A, moved to B)" : " (node B)") + " " + subs;
        }
    }

    @Test
    void everyClientReceivesExactlyWhatTheOracleSelectsAlsoAfterMovingToAnotherNode() throws Exception {
        long seed = Long.getLong("sluice.oracle.seed", DEFAULT_SEED);
        System.out.println("FilterOracleTest seed=" + seed + " (replay with -Dsluice.oracle.seed=" + seed + ")");
        RandomSelections random = new RandomSelections(new Random(seed));
        String bootstrap = cluster.getBootstrapServers();
        try (KafkaHelper kafka = new KafkaHelper(bootstrap)) {
            String topic = kafka.createTopic(PARTITIONS);
            String t = "/" + topic + "/";
            String token = TestAuthenticator.token("oracle", topic + "/*", "");

            // A pool of selections, so that several subscriptions share a group; null entries select everything.
            List<Sub> pool = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                JsonNode filter = i == 0 || random.nextChance(0.2) ? null : random.topFilter();
                ArrayNode fields = i == 0 || random.nextChance(0.5) ? null : random.fields();
                pool.add(new Sub(null, filter, fields));
            }
            List<List<String>> onA = List.of(List.of(t + "*"), List.of(t + "*"), List.of(t + "fx/*"), List.of(t + "eq/*"),
                    List.of(t + "fx/eur"), List.of(t + RandomSelections.RARE), List.of(t), List.of(t + "a"));
            List<List<String>> onB = List.of(List.of(t + "*"), List.of(t + "fx/*"), List.of(t + "b"), List.of(t + "fx/chf/spot"),
                    List.of(t + "fx/eur", t + "fx/*", t + "*"), List.of(t + "a", t + "*"), List.of(t + "fx/*", t + "*"),
                    List.of(t + "eq/acme", t + "eq/*"));
            List<Client> clients = new ArrayList<>();
            for (List<String> patterns : onA) {
                clients.add(new Client(clients.size(), true, selections(patterns, pool, random)));
            }
            for (List<String> patterns : onB) {
                clients.add(new Client(clients.size(), false, selections(patterns, pool, random)));
            }
            clients.forEach(c -> System.out.println("FilterOracleTest " + c));

            int stopAfter = 10 + random.nextInt(DURING - 40);
            long started = System.nanoTime();
            try (BridgeFixture b = BridgeFixture.start(bootstrap, "oracle-b", "topics: " + topic
                    + "\nrecovery:\n  cacheMessagesPerEndpoint: 3\n")) {
                BridgeFixture a = BridgeFixture.start(bootstrap, "oracle-a", "topics: " + topic);
                try {
                    for (Client c : clients) {
                        c.ws = WsClient.connected((c.onA ? a : b).port(), token);
                        for (Sub s : c.subs) {
                            JsonNode subscribed = subscribe(c, s, null);
                            subscribed.get("positions").forEach(p -> assertThat(p.get("seq").asLong())
                                    .as("the topic is empty when clients subscribe").isEqualTo(-1));
                            subscribed.get("positions").forEach(p -> c.positions.merge(p.get("epoch").asText(), -1L, Math::max));
                        }
                    }

                    produce(kafka, topic, random, BEFORE);
                    // Node A stops while records keep coming.
                    AtomicInteger produced = new AtomicInteger();
                    List<RandomSelections.Produced> during = new ArrayList<>();
                    for (int i = 0; i < DURING; i++) {
                        during.add(random.record());
                    }
                    CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
                        for (RandomSelections.Produced p : during) {
                            send(kafka, topic, p);
                            produced.incrementAndGet();
                        }
                    });
                    await().atMost(Duration.ofSeconds(30)).until(() -> produced.get() >= stopAfter || producing.isDone());
                    a.close();
                    for (Client c : clients) {
                        if (c.onA) {
                            assertThat(c.ws.awaitClose()).as("%s: the stopping node's close", c).isEqualTo(1001);
                            c.drain();
                            c.ws.close();
                            c.ws = WsClient.connected(b.port(), token);
                            for (Sub s : c.subs) {
                                subscribe(c, s, c.positions);
                            }
                        }
                    }
                    producing.join();
                }
                finally {
                    a.close();
                }
                produce(kafka, topic, random, AFTER);

                Map<Integer, List<ConsumerRecord<byte[], byte[]>>> log = readBack(bootstrap, topic, BEFORE + DURING + AFTER);
                Uuid topicId = topicId(bootstrap, topic);
                Map<Client, Map<String, List<String>>> expected = new HashMap<>();
                for (Client c : clients) {
                    expected.put(c, expectation(c, log, topicId, t));
                }
                try {
                    await().atMost(Duration.ofSeconds(45)).until(() -> {
                        clients.forEach(Client::drain);
                        return clients.stream().allMatch(c -> c.messages.size() >= count(expected.get(c)));
                    });
                }
                catch (org.awaitility.core.ConditionTimeoutException e) {
                    // Compared below, which says what is missing.
                }
                Thread.sleep(300); // anything extra, or twice, that is still on its way
                clients.forEach(Client::drain);

                int total = 0;
                for (Client c : clients) {
                    assertThat(c.anomalies).as("seed %d, %s: only messages (no gap, error, conflation)", seed, c).isEmpty();
                    Map<String, List<String>> got = received(c);
                    assertThat(got).as("seed %d, %s: the messages of each epoch, in order", seed, c).isEqualTo(expected.get(c));
                    total += c.messages.size();
                }
                double fromCache = b.metric("sluice_bridge_recovery_requests_total", "source=\"cache\"");
                double fromLog = b.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"");
                System.out.printf("FilterOracleTest seed=%d: %d records, %d messages compared, recoveries on B: %.0f from the cache,"
                        + " %.0f from the Kafka log, stop after %d records of %d, %d ms%n", seed, BEFORE + DURING + AFTER, total,
                        fromCache, fromLog, BEFORE + stopAfter, BEFORE + DURING,
                        Duration.ofNanos(System.nanoTime() - started).toMillis());
                assertThat(fromCache).as("some recovery used B's cache").isPositive();
                assertThat(fromLog).as("some recovery read the Kafka log").isPositive();
            }
            finally {
                for (Client c : clients) {
                    if (c.ws != null) {
                        c.ws.close();
                    }
                }
            }
        }
    }

    private static List<Sub> selections(List<String> patterns, List<Sub> pool, RandomSelections random) {
        List<Sub> subs = new ArrayList<>();
        for (String pattern : patterns) {
            Sub selection = pool.get(random.nextInt(pool.size()));
            subs.add(new Sub(pattern, selection.filter(), selection.fields()));
        }
        return subs;
    }

    /** Subscribes, retrying after {@code busy}; messages of the connection's other subscriptions may come first. */
    private static JsonNode subscribe(Client c, Sub s, Map<String, Long> recover) throws InterruptedException {
        while (true) {
            long id = c.ws.request("subscribe", m -> {
                s.addTo(m);
                if (recover != null) {
                    ArrayNode positions = m.putArray("recover");
                    recover.forEach((epoch, seq) -> positions.addObject().put("epoch", epoch).put("seq", seq));
                }
            });
            while (true) {
                JsonNode m = c.ws.next();
                String type = m.path("type").asText();
                if (type.equals("subscribed") && m.path("id").asLong() == id) {
                    return m;
                }
                if (type.equals("error") && m.path("id").asLong() == id && m.path("code").asText().equals("busy")) {
                    Thread.sleep(Math.max(50, m.path("retryAfterMs").asLong(200)));
                    break;
                }
                assertThat(type).as("%s: subscribing to %s, got %s", c, s, m).isIn("message");
                c.take(m);
            }
        }
    }

    private static void produce(KafkaHelper kafka, String topic, RandomSelections random, int n) {
        for (int i = 0; i < n; i++) {
            send(kafka, topic, random.record());
        }
    }

    /**
     * Keyed records go where Kafka's default partitioner puts them, which is the partition a node reports for an exact
     * endpoint; records without a key go to the partition of the empty key, so that {@code /t/} (both) has one.
     */
    private static void send(KafkaHelper kafka, String topic, RandomSelections.Produced p) {
        byte[] key = p.key() == null ? null : p.key().getBytes(StandardCharsets.UTF_8);
        Integer partition = p.key() == null ? Utils.toPositive(Utils.murmur2(new byte[0])) % PARTITIONS : null;
        try {
            kafka.send(new ProducerRecord<>(topic, partition, key, p.value(), p.headers()));
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> readBack(String bootstrap, String topic, int records) {
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> log = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "key.deserializer", ByteArrayDeserializer.class, "value.deserializer", ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
                log.put(p, new ArrayList<>());
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    log.get(r.partition()).add(r);
                    read++;
                }
            }
            assertThat(read).as("the whole topic read back").isEqualTo(records);
        }
        return log;
    }

    private static Uuid topicId(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
        }
    }

    /** Per epoch, the messages the client must receive, in order, each as {@link #line}. */
    private static Map<String, List<String>> expectation(Client c, Map<Integer, List<ConsumerRecord<byte[], byte[]>>> log,
                                                         Uuid topicId, String t) {
        List<Sub> byRank = new ArrayList<>(c.subs);
        byRank.sort(Comparator.comparingInt(Sub::rank));
        Map<String, List<String>> expected = new TreeMap<>();
        log.forEach((partition, records) -> {
            String epoch = PartitionEpochs.epoch(topicId, partition);
            for (ConsumerRecord<byte[], byte[]> r : records) {
                String endpoint = t + (r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8));
                JsonNode view = OracleSelection.view(r);
                for (Sub s : byRank) {
                    if (!s.covers(endpoint) || !OracleSelection.matches(s.filter(), view)) {
                        continue;
                    }
                    OracleSelection.Payload whole = OracleSelection.payloadOf(r.value());
                    String format = whole.format();
                    JsonNode payload = whole.payload();
                    if (s.fields() != null && r.value() != null) {
                        List<String> fields = new ArrayList<>();
                        s.fields().forEach(f -> fields.add(f.textValue()));
                        format = "json";
                        payload = OracleSelection.project(fields, payload);
                    }
                    expected.computeIfAbsent(epoch, e -> new ArrayList<>()).add(line(r.offset(), endpoint, format, payload, r.timestamp()));
                    break; // once per connection
                }
            }
        });
        return expected;
    }

    private static Map<String, List<String>> received(Client c) {
        Map<String, List<String>> got = new TreeMap<>();
        for (JsonNode m : c.messages) {
            got.computeIfAbsent(m.get("epoch").asText(), e -> new ArrayList<>()).add(line(m.get("seq").asLong(),
                    m.get("endpoint").asText(), m.get("format").asText(), m.get("payload"), m.get("timestamp").asLong()));
        }
        return got;
    }

    private static int count(Map<String, List<String>> expected) {
        return expected.values().stream().mapToInt(List::size).sum();
    }

    /** One message as comparable text: numbers by value (1, 1.0 and 1.00 alike), members sorted by name. */
    private static String line(long seq, String endpoint, String format, JsonNode payload, long timestamp) {
        return seq + " " + endpoint + " " + format + " " + canonical(payload) + " @" + timestamp;
    }

    private static String canonical(JsonNode node) {
        if (node == null) {
            return "<absent>";
        }
        if (node.isNumber()) {
            BigDecimal d = node.decimalValue();
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        }
        if (node.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            node.fieldNames().forEachRemaining(names::add);
            StringBuilder out = new StringBuilder("{");
            for (String name : names) {
                out.append(out.length() > 1 ? "," : "").append(WsClient.JSON.getNodeFactory().textNode(name)).append(':')
                        .append(canonical(node.get(name)));
            }
            return out.append('}').toString();
        }
        if (node.isArray()) {
            StringBuilder out = new StringBuilder("[");
            for (Iterator<JsonNode> it = node.elements(); it.hasNext();) {
                out.append(out.length() > 1 ? "," : "").append(canonical(it.next()));
            }
            return out.append(']').toString();
        }
        return node.toString();
    }
}
