package io.sluice.app.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.testkit.LocalKafka;
import io.sluice.proxy.server.ProxyServer;

/**
 * {@code sluice demo}: a real single-node KRaft broker in a child process, the proxy in front of it on
 * 127.0.0.1:9192, a round trip through the proxy to prove it, and instructions for any Kafka client.
 */
@Command(name = "demo", description = "Start a local Kafka broker and the proxy in front of it, prove a round trip through the proxy,"
        + " and show how to point a Kafka client at it.")
public final class DemoCommand implements Callable<Integer> {

    private static final String TOPIC = "demo";

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9192",
            description = "The proxy's bootstrap address; broker node N is on the port after it + N (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--management-port", paramLabel = "PORT", defaultValue = "9190",
            description = "The proxy's metrics, health and readiness port (default: ${DEFAULT-VALUE}).")
    int managementPort;

    @Option(names = "--check", description = "Exit after the round trip instead of running until Ctrl-C.")
    boolean check;

    @Override
    public Integer call() throws Exception {
        System.out.println("Starting a single-node Kafka broker (KRaft) from the Maven Central jars...");
        LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults());
        List<DemoPart> parts = new ArrayList<>();
        ServiceLoader.load(DemoPart.class).forEach(parts::add);
        ProxyServer proxy;
        try {
            proxy = ProxyServer.start(ProxyConfigLoader.parse(demoYaml(kafka.bootstrapServers(), bootstrap, managementPort) + filtersYaml(parts), Map.of()));
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        // Parts first (they use the proxy), then the proxy, then Kafka.
        Runnable stop = () -> {
            for (int i = parts.size() - 1; i >= 0; i--) {
                try {
                    parts.get(i).close();
                } catch (RuntimeException e) {
                    System.err.println("sluice demo: stopping " + parts.get(i).getClass().getSimpleName() + ": " + e);
                }
            }
            proxy.close();
            kafka.close();
        };
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            List<String> roundTrip = selfCheck(bootstrap);
            System.out.println();
            System.out.println("Sluice demo is running.");
            System.out.println("  Kafka broker (real, hidden behind the proxy): " + kafka.bootstrapServers() + "  log: " + kafka.logFile());
            System.out.println("  Sluice proxy bootstrap:                       " + bootstrap + "  (broker node N on the port after it + N)");
            System.out.println("  Metrics, health, readiness:                   http://127.0.0.1:" + proxy.managementPort() + "/metrics  /healthz  /readyz");
            System.out.println("  Self-check through the proxy:                 produced and read back " + roundTrip + " on topic '" + TOPIC + "'");
            System.out.println();
            System.out.println("Point any Kafka client at the proxy by changing only bootstrap.servers, e.g.:");
            System.out.println("  kafka-console-producer.sh --bootstrap-server " + bootstrap + " --topic " + TOPIC);
            System.out.println("  kafka-console-consumer.sh --bootstrap-server " + bootstrap + " --topic " + TOPIC + " --from-beginning");
            System.out.println("  kcat -b " + bootstrap + " -L      # every broker listed is a proxy address");
            for (DemoPart part : parts) {
                System.out.println();
                part.show(new DemoPart.Demo(kafka.bootstrapServers(), bootstrap), System.out);
            }
            if (check) {
                return 0;
            }
            System.out.println();
            System.out.println("Press Ctrl-C to stop.");
            CountDownLatch done = new CountDownLatch(1);
            // Ctrl-C: the JVM exits once its shutdown hooks return, so the hook waits for the cleanup below.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                done.countDown();
                try {
                    stopped.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "sluice-demo-stop"));
            done.await();
            return 0;
        } finally {
            stop.run();
            stopped.countDown();
        }
    }

    static ProxyConfig demoConfig(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        return ProxyConfigLoader.parse(demoYaml(kafkaBootstrap, proxyBootstrap, managementPort), Map.of());
    }

    /** The demo's proxy configuration: one virtual cluster, passthrough, one port-per-broker gateway. */
    public static String demoYaml(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        return """
                management:
                  bindAddress: 127.0.0.1
                  port: %d
                virtualClusters:
                  - name: demo
                    targetCluster:
                      bootstrapServers: "%s"
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: "%s"
                """.formatted(managementPort, kafkaBootstrap, proxyBootstrap);
    }

    /** The filters the demo parts contribute, as top-level YAML. */
    private static String filtersYaml(List<DemoPart> parts) {
        StringBuilder definitions = new StringBuilder();
        List<String> names = new ArrayList<>();
        for (DemoPart part : parts) {
            definitions.append(part.filterDefinitions().stripIndent());
            names.addAll(part.filters());
        }
        if (names.isEmpty()) {
            return "";
        }
        return "filterDefinitions:\n" + definitions + "defaultFilters: [" + String.join(", ", names) + "]\n";
    }

    /** Creates the demo topic, then produces and consumes three records through the proxy. */
    static List<String> selfCheck(String proxyBootstrap) throws Exception {
        Map<String, Object> common = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxyBootstrap);
        try (Admin admin = Admin.create(common)) {
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        List<String> sent = List.of("hello", "from", "sluice");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(common, new StringSerializer(), new StringSerializer())) {
            for (String value : sent) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "demo", value)).get();
            }
        }
        List<String> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxyBootstrap), new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            consumer.seek(tp, Math.max(0, end - sent.size()));
            long deadline = System.currentTimeMillis() + 30_000;
            while (received.size() < sent.size() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> received.add(r.value()));
            }
        }
        if (!received.equals(sent)) {
            throw new IllegalStateException("self-check through the proxy failed: sent " + sent + ", read back " + received);
        }
        return received;
    }
}
