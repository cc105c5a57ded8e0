package io.sluice.bench.idle;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.bench.targets.DemoProxyConfig;
import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;
import io.sluice.testkit.RunEnvironment;
import io.sluice.testkit.bench.BenchKafka;
import io.sluice.testkit.bench.BenchTopics;

/**
 * What a proxy costs when nothing happens ({@code sluice bench idle}): a passthrough proxy in a child JVM, its CPU over
 * a window with no client, then over a window with idle clients connected (producers that only fetched metadata,
 * consumers long-polling an empty partition, as a quiet application's clients do). In: the {@link Settings}; out: the
 * two figures, printed as a table. The sizing fit's intercept is not this figure: see performance.md.
 */
public final class IdleBench {

    /**
     * What the command line asked for.
     *
     * @param launcher the launcher class the child proxy runs ({@link LocalProxy})
     * @param kafka    a running Kafka's bootstrap servers, or null to start one
     * @param topic    the run's topic (new per run: on a running Kafka an earlier run's is there already)
     * @param seconds  each measured window
     * @param settle   the wait before each window, for start-up and connections to settle
     */
    public record Settings(String launcher, String kafka, String topic, int seconds, int settle, int producers, int consumers) {
    }

    private final Settings settings;
    private final PrintStream out;

    private IdleBench(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    public static int run(Settings settings, PrintStream out) throws Exception {
        return new IdleBench(settings, out).run();
    }

    private int run() throws Exception {
        int seconds = settings.seconds();
        int settle = settings.settle();
        int producers = settings.producers();
        int consumers = settings.consumers();
        String topic = settings.topic();
        out.printf("sluice bench idle: a passthrough proxy, %d s with no client, then %d s with %d idle producers and %d consumers;"
                + " %d s settling before each; load average %s%n", seconds, seconds, producers, consumers, settle, RunEnvironment.loadAverages());
        try (BenchKafka kafka = BenchKafka.open(settings.kafka())) {
            BenchTopics.create(kafka.bootstrapServers(), topic, 1);
            String bootstrap = "127.0.0.1:" + FreePorts.block(8);
            int managementPort = FreePorts.block(1);
            try (LocalProxy proxy = LocalProxy.start(settings.launcher(), DemoProxyConfig.yaml(kafka.bootstrapServers(), bootstrap, managementPort), managementPort,
                    List.of("-Xmx512m", "-XX:+UseParallelGC"))) {
                out.printf("%s; proxy pid %d at %s; CPU from /proc/%d (utime+stime)%n", kafka.describe(), proxy.pid(), bootstrap, proxy.pid());
                Thread.sleep(settle * 1000L);
                double alone = millicores(proxy.pid(), null);
                out.printf("no client:  %.1f millicores%n", alone);
                double withClients;
                try (IdleClients clients = IdleClients.open(bootstrap, topic, producers, consumers)) {
                    Thread.sleep(settle * 1000L);
                    withClients = millicores(proxy.pid(), clients);
                }
                out.printf("idle clients: %.1f millicores%n", withClients);
                out.println();
                out.printf("== sluice bench idle: load average %s ==%n", RunEnvironment.loadAverages());
                out.println("| proxy | CPU |");
                out.println("|---|---|");
                out.printf("| no client | %.1f millicores |%n", alone);
                out.printf("| %d idle producers + %d consumers long-polling | %.1f millicores |%n", producers, consumers, withClients);
            }
        }
        return 0;
    }

    /** The proxy's CPU over one window, keeping the consumers polling if there are any. */
    private double millicores(long pid, IdleClients clients) throws InterruptedException {
        long cpu0 = CpuSampler.processCpuNanos(pid);
        long t0 = System.nanoTime();
        long end = t0 + settings.seconds() * 1_000_000_000L;
        while (System.nanoTime() < end) {
            if (clients != null) {
                clients.poll();
            }
            Thread.sleep(200);
        }
        return (CpuSampler.processCpuNanos(pid) - cpu0) / ((System.nanoTime() - t0) / 1e3);
    }

    /** Clients that connect through the proxy and then do what quiet applications do. */
    private static final class IdleClients implements AutoCloseable {
        private final List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();

        static IdleClients open(String bootstrap, String topic, int producerCount, int consumerCount) {
            IdleClients clients = new IdleClients();
            for (int i = 0; i < producerCount; i++) {
                Properties p = new Properties();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
                producer.partitionsFor(topic);
                clients.producers.add(producer);
            }
            for (int i = 0; i < consumerCount; i++) {
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                clients.consumers.add(consumer);
            }
            clients.poll();
            return clients;
        }

        void poll() {
            consumers.forEach(c -> c.poll(Duration.ofMillis(1)));
        }

        @Override
        public void close() {
            consumers.forEach(c -> c.close(Duration.ofSeconds(2)));
            producers.forEach(p -> p.close(Duration.ofSeconds(2)));
        }
    }
}
