package io.sluice.bridge.server;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.format.AvroBinary;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.format.registry.RegistryStandIn.Misbehaviour;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records and a registry that go wrong, through a real bridge: a schema id the registry does not know, a registry that
 * is slow, answers a huge or malformed body, and bytes that do not match their schema. Each such record becomes a gap
 * for its own offset (the topic's policy), and the clients of another topic, and the following good records of the
 * same topic, are unharmed.
 */
@ExtendWith(KafkaClusterExtension.class)
class HostileRegistryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema POINT = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Point\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}");

    /** The same shape under another name: another schema, so another id, that the node has not seen. */
    private static final Schema POINT2 = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Point2\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}");
    // 60 at 10/s after a burst of 10 (the 4 lookup threads at 200 ms a lookup could ask 20/s): about 5 s of attack;
    // synchronous lookups on the reader would take 12 s (60 x 200 ms).
    private static final int BOGUS = 60;
    /** One lookup waits per partition at a time: eight of them, at 200 ms a lookup, ask faster than the rate. */
    private static final int PARTITIONS = 8;
    private static final int LOOKUPS_PER_SECOND = 10;
    private static final int LOOKUP_BURST = 10;

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    private static byte[] framed(int schemaId, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(schemaId).put(body).array();
    }

    private static byte[] point(int x, int y) {
        return point(POINT, x, y);
    }

    private static byte[] point(Schema schema, int x, int y) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("x", x);
        r.put("y", y);
        return AvroBinary.write(schema, r);
    }

    /** The next frame on the Avro topic must be a gap for exactly {@code offset}; the plain topic's message arrives too. */
    private static void gapAndNeighbourUnharmed(WsClient client, KafkaHelper kafka, String avro, String plain, byte[] hostile)
            throws Exception {
        long bad = kafka.send(avro, "p", hostile);
        long neighbour = kafka.send(plain, "n", "{\"ok\":true}");
        boolean gap = false;
        boolean message = false;
        while (!gap || !message) {
            JsonNode m = client.next();
            if (m.get("type").asText().equals("gap")) {
                assertThat(m.get("endpoint").asText()).startsWith("/" + avro + "/");
                assertThat(m.get("reason").asText()).isEqualTo("undecodable");
                assertThat(m.get("fromSeq").asLong()).isEqualTo(bad);
                assertThat(m.get("toSeq").asLong()).isEqualTo(bad);
                gap = true;
            }
            else {
                assertThat(m.get("seq").asLong()).as("%s", m).isEqualTo(neighbour);
                assertThat(m.get("payload")).isEqualTo(JSON.readTree("{\"ok\":true}"));
                message = true;
            }
        }
    }

    @Test
    void unknownIdsSlowHugeOrMalformedAnswersAndMismatchedBytesCostTheirOwnRecordOnly() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String avro = kafka.createTopic(1);
            String plain = kafka.createTopic(1);
            int id = registry.register(avro + "-value", POINT.toString());
            String config = "topics: " + avro + "," + plain + "\nschemaRegistry:\n  url: " + registry.url()
                    + "\n  timeout: 1s\n  maxResponseBytes: 64KiB\nformats:\n  - topics: " + avro + "\n    value: {type: avro}\n    onDecodeFailure: gap\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-hostile-registry", config);
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("h", avro + "/*," + plain + "/*", ""))) {
                client.subscribe("/" + avro + "/*");
                client.subscribe("/" + plain + "/*");

                gapAndNeighbourUnharmed(client, kafka, avro, plain, framed(id + 1000, point(1, 2)));          // unknown id
                gapAndNeighbourUnharmed(client, kafka, avro, plain, framed(id, new byte[] {(byte) 0xff, 1})); // bytes not of the schema
                gapAndNeighbourUnharmed(client, kafka, avro, plain, new byte[] {7, 0, 0});                  // no Confluent header
                registry.misbehave(Misbehaviour.hugeBody(50L << 20, false));
                gapAndNeighbourUnharmed(client, kafka, avro, plain, framed(id + 3000, point(1, 2)));          // 50 MB answer
                registry.misbehave(Misbehaviour.malformed("{\"schema\": [[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]}"));
                gapAndNeighbourUnharmed(client, kafka, avro, plain, framed(id + 4000, point(1, 2)));          // malformed answer
                // Last: after a timeout the node asks the registry nothing new for cache.failureTtl (30 s).
                registry.misbehave(Misbehaviour.delay(Duration.ofSeconds(30)));
                gapAndNeighbourUnharmed(client, kafka, avro, plain, framed(id + 2000, point(1, 2)));          // registry too slow
                registry.behave();

                // The schema the node already has keeps serving: good records of the same topic decode.
                long good = kafka.send(avro, "p", framed(id, point(3, 4)));
                JsonNode m = client.next();
                assertThat(m.get("seq").asLong()).isEqualTo(good);
                assertThat(m.get("payload")).isEqualTo(JSON.readTree("{\"x\":3,\"y\":4}"));
                assertThat(bridge.metric("sluice_bridge_decode_failures_total", "part=\"value\"")).isEqualTo(6);
                assertThat(bridge.metric("sluice_bridge_registry_requests_total", "outcome=\"too_large\"")).isGreaterThanOrEqualTo(1);
                assertThat(bridge.metric("sluice_bridge_registry_requests_total", "outcome=\"timeout\"")).isGreaterThanOrEqualTo(1);
                assertThat(client.drainNow()).isEmpty();
                assertThat(List.of(client.isOpen())).containsExactly(true);
            }
        }
    }

    /**
     * A producer writes {@value #BOGUS} records naming fresh bogus schema ids (magic 0 and a 4-byte id nobody
     * registered) to the eight partitions of a registry-read topic, while the registry takes 200 ms per answer. A record
     * on another topic of the node, produced after them, reaches its subscriber within 5 s: the lookups run off the
     * reader thread (the waiting partitions are paused), at most {@code schemaRegistry.lookups} of them per second. Each
     * bogus record then becomes a gap for its own offset, and a record with a valid id the node had not seen, written
     * behind them, arrives decoded.
     */
    @Test
    void aFloodOfBogusSchemaIdsWaitsOffTheReaderAtTheLookupRateWhileOtherTopicsKeepFlowing() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String avro = kafka.createTopic(PARTITIONS);
            String plain = kafka.createTopic(1);
            int id = registry.register(avro + "-value", POINT.toString());
            String config = "topics: " + avro + "," + plain + "\nschemaRegistry:\n  url: " + registry.url()
                    + "\n  timeout: 5s\n  lookups: {perSecond: " + LOOKUPS_PER_SECOND + ", burst: " + LOOKUP_BURST + "}"
                    + "\nformats:\n  - topics: " + avro + "\n    value: {type: avro}\n    onDecodeFailure: gap\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-id-flood", config);
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("h", avro + "/*," + plain + "/*", ""))) {
                client.subscribe("/" + avro + "/*");
                client.subscribe("/" + plain + "/*");
                registry.misbehave(Misbehaviour.delay(Duration.ofMillis(200)));
                long attackStart = System.nanoTime();

                List<ProducerRecord<byte[], byte[]>> bogus = new ArrayList<>();
                for (int i = 0; i < BOGUS; i++) {
                    bogus.add(new ProducerRecord<>(avro, i % PARTITIONS, "p".getBytes(), framed(id + 1000 + i, point(i, i))));
                }
                kafka.sendAll(bogus);
                int fresh = registry.register("elsewhere-value", POINT2.toString());
                long valid = kafka.send(new ProducerRecord<>(avro, 0, "v".getBytes(), framed(fresh, point(POINT2, 5, 6))));
                long honest = kafka.send(plain, "n", "{\"ok\":true}");

                Set<String> gaps = new HashSet<>();
                JsonNode decoded = null;
                JsonNode neighbour = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (neighbour == null) {
                    JsonNode m = client.poll(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                    assertThat(m).as("the other topic's record, produced after %s records with bogus schema ids, within 5 s"
                            + " (%s gaps had arrived)", BOGUS, gaps.size()).isNotNull();
                    if (m.get("endpoint").asText().startsWith("/" + plain + "/")) {
                        neighbour = m;
                    }
                    else if (m.get("type").asText().equals("gap")) {
                        gaps.add(m.get("epoch").asText() + "@" + m.get("fromSeq").asLong());
                    }
                    else {
                        decoded = m;
                    }
                }
                assertThat(neighbour.get("seq").asLong()).isEqualTo(honest);
                assertThat(neighbour.get("payload")).isEqualTo(JSON.readTree("{\"ok\":true}"));

                // Nothing of the attacker's topic is lost: every bogus record becomes a gap for its own offset, and the
                // valid record behind them arrives decoded.
                while (gaps.size() < BOGUS || decoded == null) {
                    JsonNode m = client.poll(Duration.ofSeconds(60));
                    assertThat(m).as("the rest of the attacker's topic (%s gaps so far, decoded: %s)", gaps.size(), decoded)
                            .isNotNull();
                    assertThat(m.get("endpoint").asText()).startsWith("/" + avro + "/");
                    if (m.get("type").asText().equals("gap")) {
                        assertThat(m.get("reason").asText()).isEqualTo("undecodable");
                        assertThat(m.get("toSeq").asLong()).isEqualTo(m.get("fromSeq").asLong());
                        assertThat(gaps.add(m.get("epoch").asText() + "@" + m.get("fromSeq").asLong())).as("%s", m).isTrue();
                    }
                    else {
                        assertThat(decoded).as("one decoded record only, got %s", m).isNull();
                        decoded = m;
                    }
                }
                double elapsedSeconds = (System.nanoTime() - attackStart) / 1e9;
                assertThat(decoded.get("seq").asLong()).isEqualTo(valid);
                assertThat(decoded.get("payload")).isEqualTo(JSON.readTree("{\"x\":5,\"y\":6}"));

                // The registry saw each new id once, and no more lookups than the rate allows.
                int lookups = registry.requests("schemas.ids");
                assertThat(lookups).isBetween(BOGUS + 1, (int) (LOOKUP_BURST + LOOKUPS_PER_SECOND * elapsedSeconds) + 1);
                assertThat(bridge.metric("sluice_bridge_registry_new_ids_total", "outcome=\"started\"")).isEqualTo(BOGUS + 1);
                assertThat(bridge.metric("sluice_bridge_registry_new_ids_total", "outcome=\"deferred\"")).isPositive();
                assertThat(bridge.metric("sluice_bridge_decode_failures_total", "part=\"value\"")).isEqualTo(BOGUS);
                assertThat(client.drainNow()).isEmpty();
            }
        }
    }

    /**
     * Recovery decodes on the log reader's threads, which may wait: records written before the node started, naming a
     * schema id it never saw, are recovered from the Kafka log decoded, their id looked up once through the same
     * rate-limited lookups as the live reader's, while the registry takes 200 ms per answer.
     */
    @Test
    void recoveredRecordsWithASchemaIdTheNodeNeverSawWaitForItsLookupAndArriveDecoded() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String avro = kafka.createTopic(1);
            int id = registry.register(avro + "-value", POINT.toString());
            List<Long> before = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                before.add(kafka.send(avro, "p", framed(id, point(i, -i))));
            }
            String config = "topics: " + avro + "\nschemaRegistry:\n  url: " + registry.url()
                    + "\nformats:\n  - topics: " + avro + "\n    value: {type: avro}\n    onDecodeFailure: gap\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-recover-new-id", config);
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("h", avro + "/*", ""))) {
                registry.misbehave(Misbehaviour.delay(Duration.ofMillis(200)));
                JsonNode subscribed = client.subscribe("/" + avro + "/*", m -> { });
                String epoch = subscribed.get("positions").get(0).get("epoch").asText();
                client.request("unsubscribe", m -> m.put("endpoint", "/" + avro + "/*"));
                client.expect("unsubscribed");
                // Seen up to the first record: the other three come from the log (the node started after them).
                client.subscribe("/" + avro + "/*", m -> m.putArray("recover").addObject().put("epoch", epoch)
                        .put("seq", before.get(0)));
                List<JsonNode> recovered = client.messages(3);
                assertThat(recovered).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(before.subList(1, 4));
                assertThat(recovered.get(0).get("payload")).isEqualTo(JSON.readTree("{\"x\":1,\"y\":-1}"));
                assertThat(registry.requests("schemas.ids")).isEqualTo(1);
                assertThat(bridge.metric("sluice_bridge_registry_new_ids_total", "outcome=\"started\"")).isEqualTo(1);
            }
        }
    }

    /**
     * The same for a topic whose keys carry the schema id: a recovery routes each record by its decoded key, and that
     * key's id is looked up through the rate-limited lookups too (it was fetched on the log reader by the key filter).
     */
    @Test
    void recoveredRecordsWhoseKeyNamesASchemaIdTheNodeNeverSawAreRoutedThroughTheSameLookups() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String topic = kafka.createTopic(1);
            int id = registry.register(topic + "-key", "\"string\"");
            // Avro's string "p": its zig-zag length 1, then the byte.
            byte[] key = framed(id, new byte[] {2, 'p'});
            List<Long> before = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                before.add(kafka.send(new ProducerRecord<>(topic, key, ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            }
            String config = "topics: " + topic + "\nschemaRegistry:\n  url: " + registry.url()
                    + "\nformats:\n  - topics: " + topic + "\n    key: {type: avro}\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-recover-new-key-id", config);
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("h", topic + "/*", ""))) {
                registry.misbehave(Misbehaviour.delay(Duration.ofMillis(200)));
                JsonNode subscribed = client.subscribe("/" + topic + "/p", m -> { });
                String epoch = subscribed.get("positions").get(0).get("epoch").asText();
                client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/p"));
                client.expect("unsubscribed");
                client.subscribe("/" + topic + "/p", m -> m.putArray("recover").addObject().put("epoch", epoch)
                        .put("seq", before.get(0)));
                List<JsonNode> recovered = client.messages(3);
                assertThat(recovered).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(before.subList(1, 4));
                assertThat(recovered).extracting(m -> m.get("endpoint").asText()).containsOnly("/" + topic + "/p");
                assertThat(registry.requests("schemas.ids")).isEqualTo(1);
                assertThat(bridge.metric("sluice_bridge_registry_new_ids_total", "outcome=\"started\"")).isEqualTo(1);
            }
        }
    }
}
