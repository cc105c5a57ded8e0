package io.sluice.bench.scenario;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.bench.BenchKafka;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * What {@code sluice bench scenario kafscale} runs (the app's KafScaleCommand parses the options into {@link Settings}): for the broker and then the passthrough proxy (a child JVM, as {@code bench proxy}
 * runs it), the hot path, the backlog read and the consumer restart, each on its own new topic; then, through the proxy
 * only, the proxy restart. One row per test.
 */
public final class KafScaleRun {

    public static final String NAME = "kafscale";

    /**
     * What the command line asked for.
     *
     * @param launcher the launcher class the child proxy runs ({@link io.sluice.testkit.LocalProxy})
     * @param kafka    a running Kafka's bootstrap servers, or null to start one
     */
    public record Settings(String launcher, ScenarioOptions options, String kafka, int records, int recordBytes, int partitions, int rate,
                           int phaseSeconds) {
    }

    static final Seed SEED = new Seed("004_fca39a1fabdf63e2.txt", "KafScale benchmarks: produce and consume via the broker, offset recovery",
            "The seed measured KafScale's own broker (S3-backed) on kind on a laptop with kcat, 2,000-4,000 records of 256 B, wall time"
                    + " of whole commands (start-up included); here Apache Kafka 4.2 (one KRaft broker, RF 1, local disk) directly and through"
                    + " Sluice's passthrough proxy, kafka-clients in one JVM, 2 shared cores over loopback, and far more records. Its S3 reads"
                    + " (cold read after a broker restart) have no counterpart; its offset recovery was listed but not published; the proxy"
                    + " restart is Sluice's own addition.");

    private static final int WARMUP_RECORDS = 200_000;

    private KafScaleRun() {
    }

    public static int run(Settings command, PrintStream out) throws Exception {
        if (command.recordBytes() < 16 || command.records() < 1 || command.partitions() < 1 || command.rate() < 1 || command.phaseSeconds() < 1) {
            throw new UsageException("--record-bytes must be at least 16, and --records, --partitions, --rate, --phase-seconds at least 1");
        }
        ScenarioReport report = new ScenarioReport(NAME, SEED, command.options(), out);
        report.begin();
        Duration phase = Duration.ofSeconds(command.phaseSeconds());
        Map<String, Object> details = new LinkedHashMap<>();
        try (BenchKafka local = BenchKafka.open(command.kafka())) {
            String kafka = local.bootstrapServers();
            String run = Long.toString(System.currentTimeMillis(), 36);
            try (ScenarioProxy proxy = ScenarioProxy.start(command.launcher(), kafka, "", Map.of())) {
                out.printf("Kafka %s; passthrough proxy pid %d at %s%n", kafka, proxy.pid(), proxy.bootstrap());
                // A throw-away hot path through each target first: the load generator's JIT, the broker's log and page cache and
                // the proxy's pools warm up there. Without it the first target measured (the broker) pays for all of them and
                // reads slower than the proxy behind it.
                int warmupRecords = Math.min(command.records(), WARMUP_RECORDS);
                for (String target : List.of("direct", "proxy")) {
                    String topic = "kafscale-" + run + "-warmup-" + target;
                    createTopics(kafka, command.partitions(), topic);
                    out.printf("%s: warm-up, %,d records (not measured)%n", target, warmupRecords);
                    new KafScaleLoad(target.equals("direct") ? kafka : proxy.bootstrap(), command.recordBytes(), out).hotPath(topic, warmupRecords);
                }
                for (String target : List.of("direct", "proxy")) {
                    KafScaleLoad load = new KafScaleLoad(target.equals("direct") ? kafka : proxy.bootstrap(), command.recordBytes(), out);
                    String topic = "kafscale-" + run + "-" + target;
                    createTopics(kafka, command.partitions(), topic, topic + "-restart", topic + "-proxy-restart");

                    out.printf("%s: hot path, %,d records of %d B%n", target, command.records(), command.recordBytes());
                    KafScaleLoad.HotPath hot = load.hotPath(topic, command.records());
                    report.row(hotPathRow(target, hot, command.recordBytes()));
                    details.put(target + ".hotPath", hot.sendErrors() + " send errors");

                    out.printf("%s: backlog, a new group from the beginning%n", target);
                    double backlog = load.backlog(topic, command.records());
                    report.row(row(target, "backlog from the beginning", count(command.records(), command.recordBytes()), "n/a",
                            rate(backlog, command.recordBytes()), "n/a", "n/a", "n/a", "n/a", "n/a"));

                    out.printf("%s: consumer restart at %,d msg/s%n", target, command.rate());
                    KafScaleLoad.Recovery consumer = load.consumerRestart(topic + "-restart", command.rate(), phase);
                    report.row(recoveryRow(target, "consumer restart (same group)", consumer, String.format(Locale.ROOT,
                            "first record %.3f s after the new consumer; at the committed offset: %s", consumer.consumeResumeSeconds(),
                            consumer.resumedAtCommitted() ? "yes" : "NO")));
                    details.put(target + ".consumerRestart", consumer);

                    if (target.equals("proxy")) {
                        out.printf("proxy: proxy restart under load at %,d msg/s%n", command.rate());
                        KafScaleLoad.Recovery restart = load.proxyRestart(proxy, topic + "-proxy-restart", command.rate(), phase);
                        report.row(recoveryRow(target, "proxy restart (SIGTERM, same addresses)", restart, String.format(Locale.ROOT,
                                "produce %.2f s, consume %.2f s after the stop", restart.produceResumeSeconds(), restart.consumeResumeSeconds())));
                        details.put("proxy.proxyRestart", restart);
                    }
                }
            }
        }
        details.forEach(report::detail);
        report.finish();
        return 0;
    }

    private static void createTopics(String kafka, int partitions, String... names) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka))) {
            List<NewTopic> topics = new ArrayList<>();
            for (String name : names) {
                topics.add(new NewTopic(name, partitions, (short) 1));
            }
            admin.createTopics(topics).all().get();
        }
    }

    static Map<String, String> hotPathRow(String target, KafScaleLoad.HotPath hot, int recordBytes) {
        return row(target, "hot path (produce + consume)", count(hot.records(), recordBytes),
                rate(hot.records() / hot.produceSeconds(), recordBytes), rate(hot.records() / hot.endToEndSeconds(), recordBytes),
                percentiles(hot.produceLatency()), percentiles(hot.endToEndLatency()), "n/a", "n/a", "n/a");
    }

    static Map<String, String> recoveryRow(String target, String test, KafScaleLoad.Recovery recovery, String resume) {
        return row(target, test, String.format(Locale.ROOT, "%,d acknowledged, %,d send errors", recovery.acknowledged(), recovery.sendErrors()),
                "n/a", "n/a", "n/a", "n/a", resume, Long.toString(recovery.lost()), Long.toString(recovery.duplicates()));
    }

    private static Map<String, String> row(String target, String test, String records, String produce, String consume, String produceLatency,
                                           String endToEndLatency, String resume, String lost, String duplicates) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Target", target);
        row.put("Test", test);
        row.put("Records", records);
        row.put("Produce", produce);
        row.put("Consume", consume);
        row.put("Produce latency p50 / p95 / p99", produceLatency);
        row.put("E2E latency p50 / p95 / p99", endToEndLatency);
        row.put("Resume", resume);
        row.put("Lost", lost);
        row.put("Duplicates", duplicates);
        return row;
    }

    static String count(long records, int recordBytes) {
        return String.format(Locale.ROOT, "%,d x %d B", records, recordBytes);
    }

    static String rate(double perSecond, int recordBytes) {
        return String.format(Locale.ROOT, "%,.0f msg/s (%.1f MB/s)", perSecond, perSecond * recordBytes / 1e6);
    }

    /** Histogram values are microseconds; the seed's unit is ms. */
    static String percentiles(Histogram latency) {
        return String.format(Locale.ROOT, "%.2f / %.2f / %.2f ms", latency.getValueAtPercentile(50) / 1000.0,
                latency.getValueAtPercentile(95) / 1000.0, latency.getValueAtPercentile(99) / 1000.0);
    }
}
