package io.sluice.proxy.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.Topics;
import io.sluice.testkit.fixtures.HostsFile;
import io.sluice.testkit.fixtures.PythonClients;
import io.sluice.tls.TestPki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Issue 33's first "done when": kafka-clients and librdkafka (confluent-kafka) against a 3-broker cluster through ONE
 * TLS port of the proxy, each broker chosen by the SNI name, with no client setting beyond bootstrap and the CA:
 * produce, consume, a consumer group rebalance (a second consumer joins), a broker that leaves and comes back (leading
 * again), and both clients refused cleanly, with what they report and the counter, for a name the proxy does not
 * route. Two virtual clusters share the port by their names. The names resolve to 127.0.0.1 through a hosts file of
 * the test's ({@link HostsFile}: this class runs in the surefire execution that sets jdk.net.hosts.file, and
 * librdkafka in a mount namespace with that file as /etc/hosts).
 */
@Tag(HostsFile.TAG)
@ExtendWith(KafkaClusterExtension.class)
class SniRoutingTest {

    private static final String DEMO = "kafka.example.com";
    private static final String OTHER = "other.example.com";
    private static final int RECORDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BrokerCluster(numBrokers = 3)
    static KafkaCluster cluster;

    static Path dir;
    static Path hosts;
    static Path ca;
    static int port;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sni-routing");
        List<String> names = new ArrayList<>();
        for (String domain : List.of(DEMO, OTHER)) {
            names.add("bootstrap." + domain);
            IntStream.range(0, 3).forEach(n -> names.add("broker-" + n + "." + domain));
        }
        names.addAll(List.of("unknown." + DEMO, "broker-7." + DEMO));
        hosts = HostsFile.writeForJvm(names);

        TestPki pki = new TestPki(dir);
        // Every name the proxy answers to (netty-pkitesting makes no wildcard names; clients accept either).
        CertificateBuilder certificate = new CertificateBuilder().subject("CN=bootstrap." + DEMO).addExtendedKeyUsageServerAuth().ecp256();
        names.forEach(certificate::addSanDnsName);
        X509Bundle server = certificate.buildIssuedBy(pki.ca);
        Path cert = pki.certificatePem(server, "sni");
        Path key = pki.privateKeyPem(server, "sni");
        ca = pki.caPem(pki.ca, "ca");

        port = FreePorts.block(1);
        StringBuilder yaml = new StringBuilder("management:\n  port: 0\nvirtualClusters:\n");
        for (String[] vc : List.of(new String[] {"demo", DEMO}, new String[] {"other", OTHER})) {
            yaml.append("""
                      - name: %s
                        targetCluster:
                          bootstrapServers: "%s"
                        gateways:
                          - name: sni
                            sniHostIdentifiesNode:
                              listenAddress: "127.0.0.1:%d"
                              bootstrapHost: bootstrap.%s
                              brokerHostPattern: broker-$(nodeId).%s
                            tls:
                              key: {certificateFile: "%s", privateKeyFile: "%s"}
                    """.formatted(vc[0], cluster.getBootstrapServers(), port, vc[1], vc[1], cert, key));
        }
        proxy = ProxyFixture.start(ProxyConfigLoader.parse(yaml.toString(), Map.of()), port);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** What kafka-clients need for the proxy at {@code host}: bootstrap and trust, nothing else. */
    private static Map<String, Object> client(String host) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, host + ":" + port);
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        config.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toString());
        return config;
    }

    @Test
    void bothClientsProduceConsumeRebalanceAndRideOutABrokerRestartThroughOnePort() throws Exception {
        double refusedBefore = proxy.metric("sluice_sni_refused_total", "");
        String topic = Topics.createTopic(client("bootstrap." + DEMO), new NewTopic("sni-" + System.nanoTime(), 3, (short) 3));
        try (Admin admin = Admin.create(client("bootstrap." + DEMO)); Admin other = Admin.create(client("bootstrap." + OTHER))) {
            // Every broker advertised by its SNI name on the one port, each virtual cluster with its own names.
            assertThat(advertised(admin)).containsExactlyInAnyOrder("0=broker-0." + DEMO + ":" + port, "1=broker-1." + DEMO + ":" + port,
                    "2=broker-2." + DEMO + ":" + port);
            assertThat(advertised(other)).containsExactlyInAnyOrder("0=broker-0." + OTHER + ":" + port, "1=broker-1." + OTHER + ":" + port,
                    "2=broker-2." + OTHER + ":" + port);
            assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
                    .allSatisfy(p -> assertThat(p.leader().host()).endsWith("." + DEMO));
        }

        CompletableFuture<PythonClients.Run> librdkafka = CompletableFuture.supplyAsync(() -> PythonClients.runLaunched(
                HostsFile.childLauncher(hosts), "sni_clients.py", Duration.ofMinutes(6), Map.of(), "scenario",
                "--bootstrap", "bootstrap." + DEMO + ":" + port, "--ca", ca.toString(), "--topic", topic, "--group", "librdkafka-" + topic,
                "--dir", dir.toString()));

        final int restarted;
        Map<String, Object> consumerConfig = client("bootstrap." + DEMO);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "kafka-clients-" + topic);
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(client("bootstrap." + DEMO), new StringSerializer(), new StringSerializer());
             KafkaConsumer<String, String> first = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer());
             KafkaConsumer<String, String> second = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            first.subscribe(List.of(topic));
            awaitAssignments(List.of(first), sizes -> sizes.get(0) == 3);
            produce(producer, topic, "alone");
            consume(List.of(first), "alone");
            first.commitSync();

            second.subscribe(List.of(topic));
            List<Integer> shared = awaitAssignments(List.of(first, second), sizes -> Math.min(sizes.get(0), sizes.get(1)) > 0
                    && sizes.get(0) + sizes.get(1) == 3);
            assertThat(shared).as("the group rebalanced over both consumers").allMatch(n -> n > 0);
            produce(producer, topic, "shared");
            assertThat(consume(List.of(first, second), "shared")).as("records per consumer").allMatch(n -> n > 0);

            JsonNode phase1 = awaitPhase("phase1.json", librdkafka);
            assertThat(phase1.get("shared")).hasSize(2).allMatch(n -> n.asInt() > 0);
            assertThat(phase1.get("perConsumer")).allMatch(n -> n.asInt() > 0);
            assertThat(texts(phase1.get("brokers"))).containsExactlyInAnyOrder("0=broker-0." + DEMO + ":" + port,
                    "1=broker-1." + DEMO + ":" + port, "2=broker-2." + DEMO + ":" + port);

            // One broker leaves: both clients carry on with the other two.
            restarted = restartableBroker();
            cluster.stopNodes(n -> n == restarted, TerminationStyle.GRACEFUL);
            Files.writeString(dir.resolve("stopped"), "");
            produce(producer, topic, "stopped");
            consume(List.of(first, second), "stopped");
            JsonNode phase2 = awaitPhase("phase2.json", librdkafka);
            assertThat(texts(phase2.get("brokers"))).hasSize(2).noneMatch(b -> b.startsWith(restarted + "="));

            // It comes back and leads again: both clients reach it by its name through the same port.
            double routedBefore = proxy.metric("sluice_client_connections_opened_total", "node_id=\"" + restarted + "\"");
            cluster.startNodes(n -> n == restarted);
            TopicPartition led = leadAgain(topic, restarted);
            Files.writeString(dir.resolve("started"), "");
            producer.send(new ProducerRecord<>(topic, led.partition(), "k", "on-" + restarted)).get(60, TimeUnit.SECONDS);
            produce(producer, topic, "started");
            consume(List.of(first, second), "started");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                    proxy.metric("sluice_client_connections_opened_total", "node_id=\"" + restarted + "\"")).isGreaterThan(routedBefore));
        }

        JsonNode result = librdkafka.get(6, TimeUnit.MINUTES).ok();
        assertThat(texts(result.at("/phase3/brokers"))).contains(restarted + "=broker-" + restarted + "." + DEMO + ":" + port).hasSize(3);
        List<Integer> leaders = new ArrayList<>();
        result.at("/phase3/leaders").forEach(n -> leaders.add(n.asInt()));
        assertThat(leaders).as("librdkafka's leaders after the restart").contains(restarted);
        assertThat(proxy.metric("sluice_sni_refused_total", "")).as("no connection of these clients refused").isEqualTo(refusedBefore);
    }

    @Test
    void bothClientsAreRefusedCleanlyForANameThePortDoesNotRoute() throws Exception {
        // A name no gateway has, no name at all (an address: neither client sends SNI for one), a node the cluster lacks.
        assertThat(refusedByKafkaClients("unknown." + DEMO)).contains("unrecognized_name");
        assertThat(refusedByKafkaClients("127.0.0.1")).contains("unrecognized_name");
        assertThat(refusedByKafkaClients("broker-7." + DEMO)).contains("unrecognized_name");
        assertThat(proxy.metric("sluice_sni_refused_total", "reason=\"unknown_name\"")).isGreaterThanOrEqualTo(1);
        assertThat(proxy.metric("sluice_sni_refused_total", "reason=\"no_sni\"")).isGreaterThanOrEqualTo(1);
        assertThat(proxy.metric("sluice_sni_refused_total", "reason=\"unknown_node\"")).isGreaterThanOrEqualTo(1);

        double unknownBefore = proxy.metric("sluice_sni_refused_total", "reason=\"unknown_name\"");
        double noSniBefore = proxy.metric("sluice_sni_refused_total", "reason=\"no_sni\"");
        JsonNode result = PythonClients.runLaunched(HostsFile.childLauncher(hosts), "sni_clients.py", Duration.ofMinutes(2), Map.of(),
                "refused", "--bootstrap", "unknown." + DEMO + ":" + port, "--bootstrap", "127.0.0.1:" + port, "--ca", ca.toString()).ok();
        for (String host : List.of("unknown." + DEMO, "127.0.0.1")) {
            // OpenSSL under librdkafka: "SSL handshake failed: ... tlsv1 unrecognized name: SSL alert number 112".
            assertThat(result.get(host + ":" + port).findValuesAsText("message")).as(host).anyMatch(m -> m.contains("unrecognized name"));
        }
        assertThat(proxy.metric("sluice_sni_refused_total", "reason=\"unknown_name\"")).isGreaterThan(unknownBefore);
        assertThat(proxy.metric("sluice_sni_refused_total", "reason=\"no_sni\"")).isGreaterThan(noSniBefore);
    }

    /** The failure kafka-clients report for a bootstrap the proxy refuses, as text down the cause chain. */
    private static String refusedByKafkaClients(String host) {
        Map<String, Object> config = client(host);
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        try (Admin admin = Admin.create(config)) {
            Throwable thrown = catchThrowable(() -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(20_000)).nodes().get());
            assertThat(thrown).as(host).isInstanceOf(ExecutionException.class);
            StringBuilder chain = new StringBuilder();
            for (Throwable t = thrown; t != null; t = t.getCause()) {
                chain.append(t).append(" <- ");
            }
            assertThat(chain).as(host).contains("SslAuthenticationException");
            return chain.toString();
        }
    }

    private static List<String> advertised(Admin admin) throws Exception {
        Collection<Node> nodes = admin.describeCluster().nodes().get();
        return nodes.stream().map(n -> n.id() + "=" + n.host() + ":" + n.port()).toList();
    }

    /**
     * The highest node id that is neither the only controller (stopping it leaves the metadata quorum standing) nor the
     * groups' coordinator: the test cluster keeps the group offsets in one unreplicated partition (the extension's
     * fixed default), which a real cluster replicates.
     */
    private static int restartableBroker() throws Exception {
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            Set<Integer> voters = direct.describeMetadataQuorum().quorumInfo().get().voters().stream()
                    .map(v -> v.replicaId()).collect(Collectors.toSet());
            Set<Integer> coordinators = partitions(direct, "__consumer_offsets").stream().map(p -> p.leader().id()).collect(Collectors.toSet());
            return direct.describeCluster().nodes().get().stream().map(Node::id)
                    .filter(id -> voters.size() > 1 || !voters.contains(id)).filter(id -> !coordinators.contains(id))
                    .max(Integer::compare).orElseThrow();
        }
    }

    /** Waits for the restarted broker to be back in every ISR, makes it the leader it prefers to be, returns one such partition. */
    private static TopicPartition leadAgain(String topic, int nodeId) throws Exception {
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(partitions(direct, topic))
                    .allSatisfy(p -> assertThat(p.isr()).extracting(Node::id).contains(nodeId)));
            Set<TopicPartition> preferred = new HashSet<>();
            partitions(direct, topic).stream().filter(p -> p.replicas().get(0).id() == nodeId)
                    .forEach(p -> preferred.add(new TopicPartition(topic, p.partition())));
            assertThat(preferred).as("partitions that prefer node " + nodeId).isNotEmpty();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                // Per-partition outcomes (ELECTION_NOT_NEEDED while the broker catches up): the leaders below decide.
                direct.electLeaders(ElectionType.PREFERRED, preferred).partitions().get();
                assertThat(partitions(direct, topic)).anySatisfy(p -> assertThat(p.leader().id()).isEqualTo(nodeId));
            });
            TopicPartitionInfo led = partitions(direct, topic).stream().filter(p -> p.leader() != null && p.leader().id() == nodeId)
                    .findFirst().orElseThrow();
            return new TopicPartition(topic, led.partition());
        }
    }

    private static List<TopicPartitionInfo> partitions(Admin admin, String topic) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        return description.partitions();
    }

    private static void produce(KafkaProducer<String, String> producer, String topic, String phase) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, "k" + i, phase + "-" + i)));
        }
        for (java.util.concurrent.Future<?> f : sent) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    /** Polls every consumer until the phase's records all arrived; how many each consumer got. */
    private static List<Integer> consume(List<KafkaConsumer<String, String>> consumers, String phase) {
        Set<String> wanted = IntStream.range(0, RECORDS).mapToObj(i -> phase + "-" + i).collect(Collectors.toSet());
        Set<String> seen = new HashSet<>();
        int[] perConsumer = new int[consumers.size()];
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!seen.containsAll(wanted)) {
            assertThat(System.nanoTime() - deadline).as(phase + ": consumed " + seen.size() + " of " + RECORDS).isNegative();
            for (int c = 0; c < consumers.size(); c++) {
                for (ConsumerRecord<String, String> record : consumers.get(c).poll(Duration.ofMillis(100))) {
                    if (wanted.contains(record.value()) && seen.add(record.value())) {
                        perConsumer[c]++;
                    }
                }
            }
        }
        return IntStream.of(perConsumer).boxed().toList();
    }

    private static List<Integer> awaitAssignments(List<KafkaConsumer<String, String>> consumers, java.util.function.Predicate<List<Integer>> done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            List<Integer> sizes = consumers.stream().map(c -> c.assignment().size()).toList();
            if (done.test(sizes)) {
                return sizes;
            }
            assertThat(System.nanoTime() - deadline).as("assignments " + sizes).isNegative();
            consumers.forEach(c -> c.poll(Duration.ofMillis(100)));
        }
    }

    /** The file the librdkafka script writes at the end of a phase; fails with its output if it ended first. */
    private static JsonNode awaitPhase(String file, CompletableFuture<PythonClients.Run> librdkafka) throws Exception {
        Path path = dir.resolve(file);
        await().atMost(Duration.ofMinutes(3)).until(() -> Files.exists(path) || librdkafka.isDone());
        if (!Files.exists(path)) {
            librdkafka.get().ok();
            throw new AssertionError("sni_clients.py ended without writing " + file);
        }
        return JSON.readTree(path.toFile());
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
