package io.sluice.filter.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequiredAcksException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.clients.Librdkafka;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.proxy.testing.KafkaReads;

import static io.sluice.filter.clients.Librdkafka.each;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Policies judged by clients we did not write, through a real proxy (JwtAuth, then Policies) in front of one real
 * broker: kafka-clients' Admin and producer, and librdkafka (confluent-kafka) as producer and AdminClient. Each refusal
 * is asserted as the client reports it (the texts docs/policies.md quotes), each allowed request as done, warn mode as
 * passing; and a direct admin and consumer on the broker check that nothing refused got there.
 */
@ExtendWith(KafkaClusterExtension.class)
class PoliciesClientsTest {

    private static final String ORDERS = "alice.orders";
    private static final Map<String, Object> ADMIN = Map.of("admin", true);

    static KafkaCluster cluster;
    static JwtProxy proxy;
    static String alice;
    static String carol;

    @BeforeAll
    static void start() throws Exception {
        proxy = JwtProxy.start(cluster, """
                - name: policies
                  type: Policies
                  config:
                    rules:
                      - name: tenants
                        principals: [alice]
                        produce: {requiredAcks: all}
                        topics:
                          names: ["$(principal).*"]
                          partitions: {max: 6}
                          minInsyncReplicas: 1
                          configs: {retention.ms: {max: 604800000}, min.insync.replicas: {max: 1}}
                      - name: rollout
                        principals: [carol]
                        mode: warn
                        produce: {requiredAcks: all}
                        topics: {names: ["$(principal).*"], partitions: {max: 6}}
                """, List.of("jwt", "policies"));
        proxy.createTopics(ORDERS);
        alice = JwtProxy.token("alice", Duration.ofMinutes(10), ADMIN);
        carol = JwtProxy.token("carol", Duration.ofMinutes(10), ADMIN);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void kafkaClientsAdminIsRefusedWithPolicyViolationAndItsMessageAllowedWithinThePolicyAndPassesInWarnMode() throws Exception {
        try (Admin admin = Admin.create(proxy.clientConfig(alice))) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("alice.big", 12, (short) 1))).all().get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(PolicyViolationException.class)
                    .hasMessage("policy topics.partitions (rule tenants): topic 'alice.big' would have 12 partitions, more than the 6 allowed");
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("bob.orders", 1, (short) 1))).all().get())
                    .cause().isInstanceOf(PolicyViolationException.class)
                    .hasMessage("policy topics.names (rule tenants): topic 'bob.orders' is not a name this principal may use (alice.*)");
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("alice.validated", 12, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                    .all().get()).cause().isInstanceOf(PolicyViolationException.class);
            // Left to the broker: its default partition count (1) and min.insync.replicas (1), read with a validateOnly
            // probe, are within the policy; retention.ms given above the maximum is not.
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("alice.forever", Optional.empty(), Optional.empty())
                    .configs(Map.of("retention.ms", "-1")))).all().get()).cause().isInstanceOf(PolicyViolationException.class)
                    .hasMessage("policy topics.configs (rule tenants): topic 'alice.forever': retention.ms=-1 (unlimited) is more than the 604800000 allowed");
            admin.createTopics(List.of(new NewTopic("alice.defaults", Optional.empty(), Optional.empty()),
                    new NewTopic("alice.week", 3, (short) 1).configs(Map.of("retention.ms", "604800000")))).all().get();

            ConfigResource week = new ConfigResource(ConfigResource.Type.TOPIC, "alice.week");
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(week, List.of(new AlterConfigOp(new ConfigEntry("min.insync.replicas", "2"),
                    AlterConfigOp.OpType.SET)))).all().get()).cause().isInstanceOf(PolicyViolationException.class)
                    .hasMessage("policy topics.configs (rule tenants): topic 'alice.week': min.insync.replicas=2 is more than the 1 allowed");
            admin.incrementalAlterConfigs(Map.of(week, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("min.insync.replicas", ""), AlterConfigOp.OpType.DELETE)))).all().get();
            assertThatThrownBy(() -> admin.createPartitions(Map.of("alice.week", org.apache.kafka.clients.admin.NewPartitions.increaseTo(7))).all().get())
                    .cause().isInstanceOf(PolicyViolationException.class).hasMessageContaining("would have 7 partitions, more than the 6 allowed");
        }
        try (Admin admin = Admin.create(proxy.clientConfig(carol))) {
            // The same breaking request in warn mode: created, and counted.
            admin.createTopics(List.of(new NewTopic("carol.big", 12, (short) 1))).all().get();
        }
        assertThat(proxy.metric("sluice_policy_violations_total", "policy=\"topics.partitions\"")).isGreaterThanOrEqualTo(3);
        assertThat(proxy.metric("sluice_policy_violations_total", "mode=\"warn\",policy=\"topics.partitions\"")).isEqualTo(1);

        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            Set<String> topics = direct.listTopics().names().get();
            assertThat(topics).contains("alice.defaults", "alice.week", "carol.big")
                    .doesNotContain("alice.big", "bob.orders", "alice.validated", "alice.forever");
            assertThat(direct.describeTopics(List.of("carol.big")).allTopicNames().get().get("carol.big").partitions()).hasSize(12);
            assertThat(direct.describeTopics(List.of("alice.week")).allTopicNames().get().get("alice.week").partitions()).hasSize(3);
            ConfigResource week = new ConfigResource(ConfigResource.Type.TOPIC, "alice.week");
            assertThat(direct.describeConfigs(List.of(week)).all().get().get(week).get("retention.ms").value()).isEqualTo("3600000");
        }
    }

    @Test
    void aKafkaClientsProducerWithAcksOneIsRefusedWithInvalidRequiredAcks() throws Exception {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig(alice));
        config.put(ProducerConfig.ACKS_CONFIG, "1");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(ORDERS, "k", "acks-one")).get())
                    .cause().isInstanceOf(InvalidRequiredAcksException.class)
                    .hasMessage("policy produce.requiredAcks (rule tenants): acks=1 is not allowed: produce with acks=all (-1)");
        }
        assertThat(KafkaReads.all(cluster.getKafkaClientConfiguration(), ORDERS, new StringDeserializer(), new StringDeserializer()))
                .extracting(ConsumerRecord::value).doesNotContain("acks-one");
    }

    @Test
    void librdkafkaProducerAndAdminClientAreRefusedWithTheirErrorsAndPassWithinThePolicyOrInWarnMode() throws Exception {
        Librdkafka librdkafka = Librdkafka.of(proxy.bootstrapServers()).token(alice);
        JsonNode refused = librdkafka.with("acks", "1").with("message.timeout.ms", "10000").produce(ORDERS, List.of(Map.entry("k1", "lk-acks-one")));
        assertThat(each(refused, "deliveries", "error")).containsExactly("INVALID_REQUIRED_ACKS");
        // librdkafka (2.16) reports a Produce error by its code's own text, not the broker's (here the proxy's) error_message.
        assertThat(each(refused, "deliveries", "message")).containsExactly("Broker: Invalid required acks value");
        JsonNode written = librdkafka.produce(ORDERS, List.of(Map.entry("k2", "lk-acks-all")));
        assertThat(each(written, "deliveries", "error")).containsOnlyNulls().hasSize(1);
        JsonNode warned = Librdkafka.of(proxy.bootstrapServers()).token(carol).with("acks", "1").produce(ORDERS, List.of(Map.entry("k3", "lk-warned")));
        assertThat(each(warned, "deliveries", "error")).containsOnlyNulls().hasSize(1);

        JsonNode created = librdkafka.createTopics(List.of(Arrays.asList("alice.lk-big", 12, 1, null), Arrays.asList("alice.lk-ok", 2, 1, null),
                Arrays.asList("bob.lk", 1, 1, null)));
        JsonNode results = created.get("results");
        assertThat(results.get("alice.lk-big").get("error").asText()).isEqualTo("POLICY_VIOLATION");
        assertThat(results.get("alice.lk-big").get("message").asText())
                .isEqualTo("policy topics.partitions (rule tenants): topic 'alice.lk-big' would have 12 partitions, more than the 6 allowed");
        assertThat(results.get("alice.lk-big").get("printed").asText()).isEqualTo("KafkaError{code=POLICY_VIOLATION,val=44,str=\"policy topics.partitions "
                + "(rule tenants): topic 'alice.lk-big' would have 12 partitions, more than the 6 allowed\"}");
        assertThat(results.get("bob.lk").get("error").asText()).isEqualTo("POLICY_VIOLATION");
        assertThat(results.get("alice.lk-ok").get("error").isNull()).isTrue();

        List<String> values = new ArrayList<>();
        KafkaReads.all(cluster.getKafkaClientConfiguration(), ORDERS, new StringDeserializer(), new StringDeserializer()).forEach(r -> values.add(r.value()));
        assertThat(values).contains("lk-acks-all", "lk-warned").doesNotContain("lk-acks-one");
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).contains("alice.lk-ok").doesNotContain("alice.lk-big", "bob.lk");
        }
    }
}
