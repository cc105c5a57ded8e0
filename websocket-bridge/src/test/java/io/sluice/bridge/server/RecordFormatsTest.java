package io.sluice.bridge.server;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.format.AvroBinary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Topics with a record format (docs/bridge-formats.md) through a real bridge and Kafka: Avro values written by Avro's
 * own writer reach clients as JSON (filters and field lists read the decoded value), undecodable values follow their
 * topic's policy, and a JSON publish is written as Avro that Avro's own reader reads back, or refused with nothing
 * written.
 */
@ExtendWith(KafkaClusterExtension.class)
class RecordFormatsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema TRADE = new Schema.Parser().parse("""
            {"type": "record", "name": "Trade", "namespace": "acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "sym", "type": "string"},
              {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
              {"name": "price", "type": ["null", "double"], "default": null},
              {"name": "ref", "type": "bytes"}
            ]}""");

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    static Path dir;

    static KafkaHelper kafka;
    static Path schemaFile;

    @BeforeAll
    static void setUp() throws Exception {
        kafka = new KafkaHelper(cluster.getBootstrapServers());
        schemaFile = Files.writeString(dir.resolve("trade.avsc"), TRADE.toString());
    }

    @AfterAll
    static void tearDown() {
        kafka.close();
    }

    private static byte[] avro(long id, String sym, String side, Double price, byte[] ref) throws Exception {
        GenericRecord r = new GenericData.Record(TRADE);
        r.put("id", id);
        r.put("sym", sym);
        r.put("side", new GenericData.EnumSymbol(TRADE.getField("side").schema(), side));
        r.put("price", price);
        r.put("ref", ByteBuffer.wrap(ref));
        return AvroBinary.write(TRADE, r);
    }

    private static String config(String topic, String policy) {
        return "topics: " + topic + "\nformats:\n  - topics: " + topic + "\n    value: {type: avro, schemaFile: '" + schemaFile
                + "'}\n    onDecodeFailure: " + policy + "\n";
    }

    private static String token(String topic) {
        return TestAuthenticator.token("gil", topic + "/*", topic + "/*");
    }

    @Test
    void avroValuesReachClientsAsJsonAndFiltersReadTheDecodedFields() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-avro", config(topic, "gap"));
             WsClient all = WsClient.connected(bridge.port(), token(topic));
             WsClient buys = WsClient.connected(bridge.port(), token(topic))) {
            all.subscribe("/" + topic + "/*");
            buys.subscribe("/" + topic + "/*", m -> {
                m.set("filter", json("{\"eq\": [\"/value/side\", \"BUY\"]}"));
                m.set("fields", json("[\"/sym\", \"/price\"]"));
            });
            long big = (1L << 60) + 1;
            long first = kafka.send(topic, "t1", avro(big, "ACME", "BUY", 12.5, new byte[] {0, 1, (byte) 255}));
            long garbage = kafka.send(topic, "t2", new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f});
            long third = kafka.send(topic, "t3", avro(7, "INIT", "SELL", null, new byte[0]));

            List<JsonNode> got = frames(all, 3);
            assertThat(got.get(0).get("format").asText()).isEqualTo("json");
            assertThat(got.get(0).get("seq").asLong()).isEqualTo(first);
            assertThat(got.get(0).get("payload")).isEqualTo(JSON.readTree(
                    "{\"id\":\"" + big + "\",\"sym\":\"ACME\",\"side\":\"BUY\",\"price\":12.5,\"ref\":\"AAH/\"}"));
            // The undecodable record: a gap for exactly its offset, in its place in the stream.
            assertThat(got.get(1).get("type").asText()).isEqualTo("gap");
            assertThat(got.get(1).get("reason").asText()).isEqualTo("undecodable");
            assertThat(got.get(1).get("fromSeq").asLong()).isEqualTo(garbage);
            assertThat(got.get(1).get("toSeq").asLong()).isEqualTo(garbage);
            assertThat(got.get(2).get("payload")).isEqualTo(JSON.readTree(
                    "{\"id\":7,\"sym\":\"INIT\",\"side\":\"SELL\",\"price\":null,\"ref\":\"\"}"));
            assertThat(got.get(2).get("seq").asLong()).isEqualTo(third);

            List<JsonNode> selected = frames(buys, 2);
            assertThat(selected.get(0).get("payload")).isEqualTo(JSON.readTree("{\"price\":12.5,\"sym\":\"ACME\"}"));
            assertThat(selected.get(1).get("type").asText()).as("the gap reaches every selection").isEqualTo("gap");
            assertThat(buys.drainNow()).isEmpty();
            assertThat(bridge.metric("sluice_bridge_decode_failures_total", "part=\"value\"")).isEqualTo(1);
        }
    }

    @Test
    void undecodableValuesAreDroppedOrSentRawAsTheirTopicSays() throws Exception {
        String dropped = kafka.createTopic(1);
        String raw = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-avro-policies",
                "topics: " + dropped + "," + raw + "\nformats:\n"
                        + "  - topics: " + dropped + "\n    value: {type: avro, schemaFile: '" + schemaFile + "'}\n    onDecodeFailure: drop\n"
                        + "  - topics: " + raw + "\n    value: {type: avro, schemaFile: '" + schemaFile + "'}\n");
             WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("gil", dropped + "/*," + raw + "/*", ""))) {
            client.subscribe("/" + dropped + "/*");
            client.subscribe("/" + raw + "/*");
            kafka.send(dropped, "k", "not avro");
            long kept = kafka.send(dropped, "k", avro(1, "A", "BUY", 1.0, new byte[0]));
            long rawSeq = kafka.send(raw, "k", "not avro either");
            List<JsonNode> got = new ArrayList<>(client.messages(2));
            got.sort((a, b) -> a.get("endpoint").asText().compareTo(b.get("endpoint").asText()));
            JsonNode fromDropped = got.stream().filter(m -> m.get("endpoint").asText().startsWith("/" + dropped + "/")).findFirst().orElseThrow();
            JsonNode fromRaw = got.stream().filter(m -> m.get("endpoint").asText().startsWith("/" + raw + "/")).findFirst().orElseThrow();
            assertThat(fromDropped.get("seq").asLong()).as("the undecodable record is a hole").isEqualTo(kept);
            assertThat(fromRaw.get("seq").asLong()).isEqualTo(rawSeq);
            assertThat(fromRaw.get("format").asText()).isEqualTo("text");
            assertThat(fromRaw.get("payload").asText()).isEqualTo("not avro either");
            assertThat(client.drainNow()).isEmpty();
            assertThat(bridge.metric("sluice_bridge_decode_failures_total", "")).isEqualTo(2);
        }
    }

    @Test
    void aJsonPublishIsWrittenAsAvroOrRefusedWithNothingWritten() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-avro-publish", config(topic, "raw"));
             WsClient client = WsClient.connected(bridge.port(), token(topic))) {
            client.request("publish", m -> m.put("endpoint", "/" + topic + "/t9").set("payload",
                    json("{\"id\": \"9007199254740993\", \"sym\": \"X\", \"side\": \"SELL\", \"price\": 2.25, \"ref\": \"AQI=\"}")));
            JsonNode ack = client.expect("ack");
            client.request("publish", m -> m.put("endpoint", "/" + topic + "/t9").set("payload",
                    json("{\"id\": 1, \"sym\": \"X\", \"side\": \"HOLD\", \"ref\": \"\"}")));
            JsonNode refused = client.expect("error");
            assertThat(refused.get("code").asText()).isEqualTo("invalid_payload");
            assertThat(refused.get("message").asText()).contains("/side");

            List<ConsumerRecord<byte[], byte[]>> written = kafka.readAll(topic);
            assertThat(written).hasSize(1);
            assertThat(written.get(0).offset()).isEqualTo(ack.get("seq").asLong());
            GenericRecord back = AvroBinary.read(TRADE, written.get(0).value());
            assertThat(back.get("id")).isEqualTo(new BigInteger("9007199254740993").longValueExact());
            assertThat(back.get("side").toString()).isEqualTo("SELL");
            assertThat(back.get("price")).isEqualTo(2.25);
            assertThat(((ByteBuffer) back.get("ref")).array()).containsExactly(1, 2);
        }
    }

    /** The next {@code n} messages and notices, whatever their type. */
    private static List<JsonNode> frames(WsClient client, int n) {
        List<JsonNode> frames = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            frames.add(client.next());
        }
        return frames;
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

}
