package io.sluice.bridge.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge's {@code masking} (docs/masking.md), the same section as the proxy's FieldMasking: with real JWTs, a
 * support token reads the card masked and the e-mail hashed, a payments token (an unmask grant for the card) the card
 * whole, live, in recovery from the node's cache and from the Kafka log; a filter cannot probe a hidden field; a
 * record the mask cannot take is a gap notice, never the record unmasked; a token unmasking everything reads it as is.
 */
@ExtendWith(KafkaClusterExtension.class)
class FieldMaskingBridgeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TestIssuer ISSUER = TestIssuer.rsa();
    private static final String ORDER = "{\"id\":%d,\"card\":{\"number\":\"4111111111111111\"},\"email\":\"ada@example.com\",\"cvv\":\"123\"}";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static JwksServer jwks;

    @BeforeAll
    static void start() throws Exception {
        jwks = new JwksServer(ISSUER.jwks());
    }

    @AfterAll
    static void stop() {
        jwks.close();
    }

    private static String token(String subject, String topic, List<String> unmask) {
        return ISSUER.token(subject, Duration.ofMinutes(5), Map.of("topics", Map.of(topic, List.of("read")), "unmask", unmask));
    }

    private BridgeFixture bridge(String node, String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), node, "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "30s"),
                sections);
    }

    @Test
    void eachTokenSeesItsMaskLiveAndInBothRecoveries(@TempDir Path dir) throws Exception {
        String topic = kafka.createTopic(1);
        Path key = Files.writeString(dir.resolve("mask.key"), "bridge-secret-bridge-secret-bridge-secret\n");
        String sections = """
                topics: %s
                formats:
                  - topics: %s
                    value: {type: json}
                masking:
                  hashKeyFile: "%s"
                  rules:
                    - topics: %s
                      fields:
                        - {path: /card/number, mask: keepLast, chars: 4}
                        - {path: /email, mask: hash}
                        - {path: /cvv, mask: remove}
                """.formatted(topic, topic, key, topic);
        String support = token("support", topic, List.of());
        String payments = token("payments", topic, List.of(topic + ":/card/number"));
        String auditor = token("auditor", topic, List.of(topic + ":*"));
        try (BridgeFixture a = bridge("node-mask-a", sections);
             BridgeFixture b = bridge("node-mask-b", sections + "recovery:\n  cacheMessagesPerEndpoint: 1\n")) {
            JsonNode position;
            String hashed;
            try (WsClient s = WsClient.connected(a.port(), support);
                 WsClient p = WsClient.connected(a.port(), payments);
                 WsClient all = WsClient.connected(a.port(), auditor);
                 WsClient probe = WsClient.connected(a.port(), support)) {
                position = s.subscribe("/" + topic + "/*").get("positions").get(0);
                p.subscribe("/" + topic + "/*");
                all.subscribe("/" + topic + "/*");
                probe.subscribe("/" + topic + "/*", m -> m.set("filter", json("{\"any\": [{\"eq\": [\"/value/card/number\", \"4111111111111111\"]},"
                        + " {\"eq\": [\"/value/id\", 9]}]}")));

                kafka.send(topic, "o1", ORDER.formatted(1));
                long bad = kafka.send(topic, "o2", "card 4111111111111111, not JSON");
                kafka.send(topic, "o1", ORDER.formatted(3));

                List<JsonNode> supportSees = List.of(s.expect("message"), s.expect("gap"), s.expect("message"));
                JsonNode first = supportSees.get(0).get("payload");
                assertThat(first.at("/card/number").asText()).isEqualTo("************1111");
                hashed = first.get("email").asText();
                assertThat(hashed).hasSize(43).doesNotContain("ada");
                assertThat(first.has("cvv")).isFalse();
                assertThat(first.get("id").asInt()).isEqualTo(1);
                assertThat(supportSees.get(1).get("reason").asText()).isEqualTo("unmaskable");
                assertThat(supportSees.get(1).toString()).doesNotContain("4111");
                assertThat(supportSees.get(2).get("payload").get("email").asText()).as("joinable").isEqualTo(hashed);

                JsonNode paymentsFirst = p.expect("message").get("payload");
                assertThat(paymentsFirst.at("/card/number").asText()).isEqualTo("4111111111111111");
                assertThat(paymentsFirst.get("email").asText()).isEqualTo(hashed);
                assertThat(p.expect("gap").get("reason").asText()).isEqualTo("unmaskable");
                assertThat(p.expect("message").get("payload").at("/card/number").asText()).isEqualTo("4111111111111111");

                List<JsonNode> whole = all.messages(3);
                assertThat(whole.get(0).get("payload").toString()).isEqualTo(ORDER.formatted(1));
                assertThat(whole.get(1).get("seq").asLong()).isEqualTo(bad);
                assertThat(whole.get(1).get("payload").asText()).isEqualTo("card 4111111111111111, not JSON");

                // The filter saw the masked number, so o1 and o3 did not match it: the hidden value cannot be probed.
                // The unmaskable record's gap notice reaches every subscriber of the group, filter or not.
                kafka.send(topic, "o9", ORDER.formatted(9));
                assertThat(probe.expect("gap").get("reason").asText()).isEqualTo("unmaskable");
                JsonNode matched = probe.expect("message").get("payload");
                assertThat(matched.get("id").asInt()).as("the first record the filter let through").isEqualTo(9);
                assertThat(matched.at("/card/number").asText()).isEqualTo("************1111");
            }
            for (BridgeFixture node : List.of(a, b)) {
                // a: every record from the node's cache; b: keeps one per endpoint, so the first o1 comes from the log.
                try (WsClient back = WsClient.connected(node.port(), support)) {
                    back.subscribe("/" + topic + "/*", m -> m.putArray("recover").addObject()
                            .put("epoch", position.get("epoch").asText()).put("seq", position.get("seq").asLong()));
                    JsonNode one = back.expect("message").get("payload");
                    assertThat(one.get("id").asInt()).isEqualTo(1);
                    assertThat(one.at("/card/number").asText()).as("recovered on %s", node).isEqualTo("************1111");
                    assertThat(one.get("email").asText()).isEqualTo(hashed);
                    assertThat(back.expect("gap").get("reason").asText()).isEqualTo("unmaskable");
                    assertThat(back.messages(2)).allSatisfy(m -> assertThat(m.get("payload").toString()).doesNotContain("4111111111111111", "ada@"));
                }
            }
        }
    }

    /**
     * The proxy's worked example in the bridge: Avro records in the Confluent wire format, decoded through the registry,
     * with config/examples/masking.yaml's masks. The support token reads what FieldMasking gives it through the proxy
     * (FieldMaskingEndToEndTest): the card's last four digits, the e-mail hashed, no CVV.
     */
    @Test
    void avroRecordsThroughTheRegistryAreMaskedAsTheProxyMasksThem(@TempDir Path dir) throws Exception {
        String topic = kafka.createTopic(1);
        Path key = Files.writeString(dir.resolve("mask.key"), "bridge-secret-bridge-secret-bridge-secret\n");
        String schemaText = """
                {"type": "record", "name": "Order", "namespace": "acme", "fields": [
                  {"name": "id", "type": "long"},
                  {"name": "card", "type": {"type": "record", "name": "Card", "fields": [
                    {"name": "number", "type": "string"}, {"name": "cvv", "type": "string", "default": ""}]}},
                  {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [{"name": "email", "type": "string"}]}}]}""";
        org.apache.avro.Schema schema = new org.apache.avro.Schema.Parser().parse(schemaText);
        try (io.sluice.format.registry.RegistryStandIn registry = io.sluice.format.registry.RegistryStandIn.start()) {
            int id = registry.register(topic + "-value", schemaText);
            String masking = io.sluice.bridge.config.MaskingConfigTest.exampleBlock().replace("topics: orders", "topics: " + topic);
            String sections = "topics: " + topic + "\nschemaRegistry: {url: \"" + registry.url() + "\"}\nformats:\n  - topics: " + topic
                    + "\n    value: {type: avro, registry: true}\n" + masking.replace("${MASK_KEY_FILE}", "\"" + key + "\"");
            org.apache.avro.generic.GenericRecord order = new org.apache.avro.generic.GenericData.Record(schema);
            org.apache.avro.generic.GenericRecord card = new org.apache.avro.generic.GenericData.Record(schema.getField("card").schema());
            card.put("number", "4111111111111111");
            card.put("cvv", "123");
            org.apache.avro.generic.GenericRecord customer = new org.apache.avro.generic.GenericData.Record(schema.getField("customer").schema());
            customer.put("email", "ada@example.com");
            order.put("id", 7L);
            order.put("card", card);
            order.put("customer", customer);
            byte[] body = io.sluice.format.AvroBinary.write(schema, order);
            byte[] value = java.nio.ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
            try (BridgeFixture bridge = bridge("node-mask-avro", sections);
                 WsClient support = WsClient.connected(bridge.port(), token("support-1", topic, List.of()));
                 WsClient payments = WsClient.connected(bridge.port(), token("clerk-9", topic, List.of(topic + ":/card/number")));
                 WsClient service = WsClient.connected(bridge.port(), token("payments-eu", topic, List.of()))) {
                support.subscribe("/" + topic + "/*");
                payments.subscribe("/" + topic + "/*");
                service.subscribe("/" + topic + "/*");
                kafka.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, "o7".getBytes(), value));

                JsonNode supportSees = support.expect("message").get("payload");
                assertThat(supportSees.at("/card/number").asText()).isEqualTo("************1111");
                assertThat(supportSees.at("/card").has("cvv")).as("removed: the bridge delivers JSON, so it is left out").isFalse();
                assertThat(supportSees.at("/customer/email").asText()).hasSize(43).doesNotContain("ada");
                JsonNode paymentsSee = payments.expect("message").get("payload");
                assertThat(paymentsSee.at("/card/number").asText()).isEqualTo("4111111111111111");
                assertThat(paymentsSee.at("/customer/email").asText()).isEqualTo(supportSees.at("/customer/email").asText());
                assertThat(service.expect("message").get("payload").toString()).as("the rule's unmaskPrincipals")
                        .isEqualTo("{\"id\":7,\"card\":{\"number\":\"4111111111111111\",\"cvv\":\"123\"},\"customer\":{\"email\":\"ada@example.com\"}}");
            }
        }
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
