package io.sluice.bridge.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.format.HostileBytes;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.format.registry.SchemaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One record costs one record (issue 30): records whose schema or bytes ask for unbounded work, through a real bridge
 * and a registry the test controls. Each attacker's record becomes a gap for its own offset (its topic's policy); an
 * honest client subscribed to another, plain JSON topic of the same node receives a record produced after the attack
 * within a bounded wait, and the node stays ready and live.
 */
@ExtendWith(KafkaClusterExtension.class)
class HostileRecordsTest {

    /** How long the honest client waits for the record produced after an attack: correctness, not speed. */
    private static final Duration HONEST_WAIT = Duration.ofSeconds(5);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    /** The attack's topic read through the registry with {@code value}, and a plain topic an honest client follows. */
    private void attack(SchemaType type, String schema, String value, java.util.function.IntFunction<byte[]> hostile)
            throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String attacked = kafka.createTopic(1);
            String plain = kafka.createTopic(1);
            // Under the attacker's own subject: the codec accepts any id the registry knows.
            int id = registry.register("attacker-" + attacked, type, schema, List.of());
            String config = "topics: " + attacked + "," + plain + "\nschemaRegistry:\n  url: " + registry.url()
                    + "\nformats:\n  - topics: " + attacked + "\n    value: " + value + "\n    onDecodeFailure: gap\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-hostile-records", config);
                 WsClient attacker = WsClient.connected(bridge.port(), TestAuthenticator.token("a", attacked + "/*", ""));
                 WsClient honest = WsClient.connected(bridge.port(), TestAuthenticator.token("h", plain + "/*", ""))) {
                attacker.subscribe("/" + attacked + "/*");
                honest.subscribe("/" + plain + "/*");

                long bad = kafka.send(attacked, "k", hostile.apply(id));
                long after = kafka.send(plain, "n", "{\"after\":true}");

                JsonNode received = honest.poll(HONEST_WAIT);
                assertThat(received).as("the honest client's record produced after the attack, within %s", HONEST_WAIT).isNotNull();
                assertThat(received.get("seq").asLong()).isEqualTo(after);
                JsonNode gap = attacker.poll(HONEST_WAIT);
                assertThat(gap).as("what the attacker's record became").isNotNull();
                assertThat(gap.get("type").asText()).as("the attacker's record became a %s", gap.get("type")).isEqualTo("gap");
                assertThat(gap.get("reason").asText()).isEqualTo("undecodable");
                assertThat(gap.get("fromSeq").asLong()).isEqualTo(bad);
                assertThat(gap.get("toSeq").asLong()).isEqualTo(bad);
                assertThat(bridge.metric("sluice_bridge_decode_failures_total", "part=\"value\"")).isEqualTo(1);
                assertThat(bridge.management("/readyz")).isEqualTo(200);
                assertThat(bridge.management("/livez")).isEqualTo(200);
            }
        }
    }

    @Test
    void aDecimalSchemaOfHugeScaleAndASevenByteRecordCostThatRecord() throws Exception {
        // 00 <id> 02 01: a 1-byte unscaled value, 1, at scale 2^31-1.
        attack(SchemaType.AVRO, HostileBytes.HUGE_DECIMAL, "{type: avro}", id -> HostileBytes.framed(id, new byte[] {2, 1}));
    }

    @Test
    void aMegabyteUnscaledValueOfADecimal38IsRefusedByItsLength() throws Exception {
        byte[] unscaled = new byte[1_000_000];
        Arrays.fill(unscaled, (byte) 0x35);
        attack(SchemaType.AVRO, HostileBytes.DECIMAL_38_2, "{type: avro}", id -> HostileBytes.framed(id, HostileBytes.avroBytes(unscaled)));
    }

    @Test
    void anArrayOfNullsWithHugeBlockCountsIsBoundedByTheRecordsSize() throws Exception {
        attack(SchemaType.AVRO, HostileBytes.NULL_ARRAY, "{type: avro}", id -> HostileBytes.framed(id, HostileBytes.nullArray(6_000)));
    }

    @Test
    void deeplyNestedProtoTextIsASchemaError() throws Exception {
        attack(SchemaType.PROTOBUF, HostileBytes.nestedProto(20_000), "{type: protobuf}",
                id -> HostileBytes.protobufFramed(id, new byte[0]));
    }

    @Test
    void aSelfNestedAnyIsBoundedByTheNestingLimit() throws Exception {
        attack(SchemaType.PROTOBUF, HostileBytes.ANY_HOLDER, "{type: protobuf}",
                id -> HostileBytes.protobufFramed(id, HostileBytes.selfNestedAny(5_000)));
    }

    /**
     * Raw key bytes equal to another record's decoded key text: with a JSON key format, {@code "alice"} decodes to
     * alice; the bytes {@code alice} are not JSON. The undecodable key must not reach alice's endpoint.
     */
    @Test
    void anUndecodableKeyDoesNotLandOnTheEndpointOfTheDecodedKeyWithTheSameText() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            String config = "topics: " + topic + "\nformats:\n  - topics: " + topic + "\n    key: {type: json}\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-hostile-keys", config);
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("h", topic + "/*", ""))) {
                client.subscribe("/" + topic + "/alice");
                long honest = kafka.send(topic, "\"alice\"", "{\"n\":1}");
                long spoofed = kafka.send(topic, "alice", "{\"n\":2}");
                long next = kafka.send(topic, "\"alice\"", "{\"n\":3}");
                JsonNode first = client.next();
                assertThat(first.get("seq").asLong()).isEqualTo(honest);
                JsonNode second = client.next();
                assertThat(second.get("seq").asLong()).as("the record with raw key bytes alice (offset %d) is not alice's", spoofed)
                        .isEqualTo(next);
                assertThat(bridge.metric("sluice_bridge_decode_failures_total", "part=\"key\"")).isEqualTo(1);
                assertThat(client.drainNow()).isEmpty();
            }
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
