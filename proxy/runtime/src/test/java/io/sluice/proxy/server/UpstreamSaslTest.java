package io.sluice.proxy.server;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.SaslMechanism;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The proxy logs in to SASL brokers with its own credentials; clients connect to the proxy without SASL. */
@ExtendWith(KafkaClusterExtension.class)
class UpstreamSaslTest {

    @Test
    void proxyAuthenticatesWithPlain(
            @SaslMechanism(value = "PLAIN", principals = { @SaslMechanism.Principal(user = "sluice", password = "proxy-secret") }) KafkaCluster cluster)
            throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), sasl("PLAIN", "sluice", "proxy-secret"), "")) {
            roundTrip(proxy);
        }
    }

    @Test
    void proxyAuthenticatesWithScram(
            @SaslMechanism(value = "SCRAM-SHA-256", principals = { @SaslMechanism.Principal(user = "sluice", password = "proxy-secret") }) KafkaCluster cluster)
            throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), sasl("SCRAM-SHA-256", "sluice", "proxy-secret"), "")) {
            roundTrip(proxy);
        }
    }

    @Test
    void wrongProxyCredentialsCloseClientConnectionsAndNothingFlows(
            @SaslMechanism(value = "PLAIN", principals = { @SaslMechanism.Principal(user = "sluice", password = "proxy-secret") }) KafkaCluster cluster)
            throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), sasl("PLAIN", "sluice", "wrong"), "")) {
            Map<String, Object> config = new HashMap<>(proxy.clientConfig());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
            try (Admin admin = Admin.create(config)) {
                assertThatThrownBy(() -> admin.listTopics().names().get()).isInstanceOf(ExecutionException.class);
            }
            assertThat(proxy.metric("sluice_upstream_connect_failures_total", "virtual_cluster=\"demo\"")).isGreaterThan(0);
        }
    }

    private static String sasl(String mechanism, String user, String password) {
        return """
                sasl:
                  mechanism: %s
                  username: %s
                  password: %s
                """.formatted(mechanism, user, password);
    }

    private static void roundTrip(ProxyFixture proxy) throws Exception {
        String topic = "sasl-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(proxy.clientConfig(), List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(proxy.clientConfig(), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "via-proxy-credentials")).get();
        }
        Map<String, Object> consumerConfig = new HashMap<>(proxy.clientConfig());
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            String value = null;
            long deadline = System.currentTimeMillis() + 30_000;
            while (value == null && System.currentTimeMillis() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    value = r.value();
                }
            }
            assertThat(value).isEqualTo("via-proxy-credentials");
        }
    }
}
