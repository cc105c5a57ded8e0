package io.sluice.app.bench.idle;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.app.bench.BenchKafka;
import io.sluice.app.bench.KafkaOption;
import io.sluice.app.demo.DemoCommand;
import io.sluice.bench.CpuSampler;
import io.sluice.bench.RunEnvironment;
import io.sluice.bench.Topics;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;

/**
 * What a proxy costs when nothing happens: a passthrough proxy in a child JVM, its CPU over a window with no client,
 * then over a window with idle clients connected (producers that only fetched metadata, consumers long-polling an empty
 * partition, as a quiet application's clients do). The sizing fit's intercept is not this figure: see performance.md.
 */
@Command(name = "idle", description = "An idle proxy's CPU: with no client, then with idle Kafka clients connected (producers, consumers long-polling"
        + " an empty partition).")
public final class BenchIdleCommand implements Callable<Integer> {

    /** A topic per run: on a running Kafka (--kafka) an earlier run's is there already. */
    private final String topic = "idle-" + Long.toString(System.currentTimeMillis(), 36);

    @Mixin
    KafkaOption kafka;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "60", description = "Each measured window (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--settle", paramLabel = "S", defaultValue = "20",
            description = "Wait before each window, for start-up and connections to settle (default: ${DEFAULT-VALUE}).")
    int settle;

    @Option(names = "--producers", paramLabel = "N", defaultValue = "50", description = "Idle producers in the second window (default: ${DEFAULT-VALUE}).")
    int producers;

    @Option(names = "--consumers", paramLabel = "N", defaultValue = "10",
            description = "Consumers long-polling an empty partition in the second window (default: ${DEFAULT-VALUE}).")
    int consumers;

    private final PrintStream out;

    public BenchIdleCommand() {
        this(System.out);
    }

    BenchIdleCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        out.printf("sluice bench idle: a passthrough proxy, %d s with no client, then %d s with %d idle producers and %d consumers;"
                + " %d s settling before each; load average %s%n", seconds, seconds, producers, consumers, settle, RunEnvironment.loadAverages());
        try (BenchKafka kafka = this.kafka.open()) {
            Topics.create(kafka.bootstrapServers(), topic, 1);
            String bootstrap = "127.0.0.1:" + FreePorts.block(8);
            int managementPort = FreePorts.block(1);
            try (LocalProxy proxy = LocalProxy.start(DemoCommand.demoYaml(kafka.bootstrapServers(), bootstrap, managementPort), managementPort,
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
        long end = t0 + seconds * 1_000_000_000L;
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
