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

import io.sluice.bench.targets.DemoProxyConfig;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;

/**
 * {@code sluice demo}: a real single-node KRaft broker in a child process, the proxy in front of it on
 * 127.0.0.1:9192, a round trip through the proxy to prove it, and instructions for any Kafka client.
 */
@Command(name = "demo", description = "Start a local Kafka broker and the proxy in front of it, prove a round trip through the proxy,"
        + " and show how to point a Kafka client at it.")
public final class DemoCommand implements Callable<Integer> {

    static final String TOPIC = "demo";

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
        return LocalDemo.run(this);
    }

    static ProxyConfig demoConfig(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        return ProxyConfigLoader.parse(DemoProxyConfig.yaml(kafkaBootstrap, proxyBootstrap, managementPort), Map.of());
    }

    /** The filters the demo parts contribute, as top-level YAML. */
    static String filtersYaml(List<DemoPart> parts) {
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
