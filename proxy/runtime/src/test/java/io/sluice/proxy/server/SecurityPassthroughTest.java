package io.sluice.proxy.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.SaslMechanism;
import io.kroxylicious.testing.kafka.common.Tls;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.tls.TestPki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** TLS towards clients (PEM, PKCS12, mutual), TLS towards brokers, and SASL passed through untouched. */
@ExtendWith(KafkaClusterExtension.class)
class SecurityPassthroughTest {

    @TempDir
    Path dir;

    @Test
    void clientsConnectOverTlsWithAPemCertificateAndMutualTlsIsEnforced(KafkaCluster cluster) throws Exception {
        TestPki pki = new TestPki(dir);
        Path cert = pki.certificatePem(pki.server, "proxy");
        Path key = pki.privateKeyPem(pki.server, "proxy");
        Path ca = pki.caPem(pki.ca, "ca");
        String tls = """
                    tls:
                      key:
                        privateKeyFile: "%s"
                        certificateFile: "%s"
                      trust:
                        storeFile: "%s"
                        storeType: PEM
                      clientAuth: REQUIRED
                """.formatted(key, cert, ca);
        try (ProxyFixture proxy = ProxyFixture.startWithGatewayTls(cluster.getBootstrapServers(), tls)) {
            Map<String, Object> client = new HashMap<>(proxy.clientConfig());
            client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            client.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            client.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toString());
            client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
            client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000);

            try (Admin anonymous = Admin.create(client)) {
                assertThatThrownBy(() -> anonymous.describeCluster().nodes().get()).isInstanceOf(ExecutionException.class);
            }

            Path clientStore = pki.keyStore(pki.client, "client", "PKCS12", "client-secret", "client-secret");
            client.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            client.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, clientStore.toString());
            client.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, "client-secret");
            roundTrip(client);
        }
    }

    @Test
    void proxyConnectsToBrokersOverTls(@Tls KafkaCluster cluster) throws Exception {
        Map<String, Object> direct = cluster.getKafkaClientConfiguration();
        String target = """
                      tls:
                        trust:
                          storeFile: "%s"
                          storePassword: "%s"
                          storeType: %s
                        verifyHostname: false
                """.formatted(direct.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG), direct.get(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG),
                direct.getOrDefault(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "JKS"));
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), target, "")) {
            roundTrip(new HashMap<>(proxy.clientConfig()));
        }
    }

    @Test
    void saslPlainPassesThroughToTheBroker(
            @SaslMechanism(value = "PLAIN", principals = { @SaslMechanism.Principal(user = "alice", password = "alice-secret") }) KafkaCluster cluster)
            throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers())) {
            Map<String, Object> client = new HashMap<>(proxy.clientConfig());
            client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
            client.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
            client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
            client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);

            client.put(SaslConfigs.SASL_JAAS_CONFIG, jaas("alice", "wrong"));
            try (Admin wrongPassword = Admin.create(client)) {
                assertThatThrownBy(() -> wrongPassword.describeCluster().nodes().get()).hasCauseInstanceOf(SaslAuthenticationException.class);
            }

            client.put(SaslConfigs.SASL_JAAS_CONFIG, jaas("alice", "alice-secret"));
            roundTrip(client);
        }
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\"" + password + "\";";
    }

    private static void roundTrip(Map<String, Object> client) throws Exception {
        String topic = "sec-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(client, List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(client, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "secured")).get();
        }
        Map<String, Object> consumerConfig = new HashMap<>(client);
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.remove(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        consumerConfig.remove(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.currentTimeMillis() + 30_000;
            String value = null;
            while (value == null && System.currentTimeMillis() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    value = r.value();
                }
            }
            assertThat(value).isEqualTo("secured");
        }
    }
}
