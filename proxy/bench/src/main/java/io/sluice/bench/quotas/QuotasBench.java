package io.sluice.bench.quotas;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.bench.jwt.JwtBenchCredentials;
import io.sluice.bench.targets.DemoProxyConfig;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;
import io.sluice.testkit.PythonEnvironment;
import io.sluice.testkit.RunEnvironment;
import io.sluice.testkit.bench.BenchKafka;
import io.sluice.testkit.bench.BenchTopics;

/**
 * What {@code sluice bench quotas} runs: two tenants through one proxy (JwtAuth, each tenant a principal of its own),
 * each a kafka-clients producer and a librdkafka consumer. The flooder produces as fast as it can; the steady tenant
 * produces a fixed number of records a second. Three runs of the same length: the steady tenant alone, both through a
 * proxy without quotas, both through a proxy whose Quotas filter limits the flooder's produce and fetch rates. Out:
 * progress lines, then a table of the three side by side: the flooder's achieved rates against its limit, the steady
 * tenant's latencies (produce acknowledgement and end to end, p50 and p99) and rate, errors, records lost, and the
 * throttle both clients saw. The proxies and the broker are child JVMs; the load runs in this JVM and in the Python
 * processes of the consumers.
 */
public final class QuotasBench {

    /**
     * What the command line asked for.
     *
     * @param launcher       the launcher class the child proxies run ({@link LocalProxy})
     * @param kafka          a running Kafka's bootstrap servers, or null to start one
     * @param seconds        each run's length
     * @param warmupSeconds  before the runs, both tenants through each proxy for this long, not counted (JIT, connections)
     * @param floodLimit     the flooder's produce and fetch limits, bytes per second
     * @param steadyRate     the steady tenant's records per second
     * @param recordBytes    every record's value size
     */
    public record Settings(String launcher, String kafka, int seconds, int warmupSeconds, long floodLimit, int steadyRate, int recordBytes) {
    }

    /** One run's figures. */
    record Run(String name, TenantProducer.Figures steady, JsonNode steadyConsumer, TenantProducer.Figures flood, JsonNode floodConsumer) {

        long errors() {
            return steady.failed() + (flood == null ? 0 : flood.failed()) + clientErrors(steadyConsumer) + clientErrors(floodConsumer);
        }

        long lost() {
            return steadyConsumer.get("missing").asLong() + (floodConsumer == null ? 0 : floodConsumer.get("missing").asLong());
        }

        private static long clientErrors(JsonNode consumer) {
            return consumer == null ? 0 : consumer.get("clientErrors").size() + consumer.get("fetchErrors").size();
        }
    }

    private static final Map<String, Object> GRANT = Map.of("topics", Map.of("quotas-*", List.of("read", "write", "describe")),
            "groups", List.of("quotas-*"));
    private static final String STEADY = "steady";
    private static final String FLOODER = "flooder";

    private final Settings settings;
    private final PrintStream out;
    private final String runId = Long.toString(System.currentTimeMillis(), 36);

    private QuotasBench(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    public static int run(Settings settings, PrintStream out) throws Exception {
        return new QuotasBench(settings, out).run();
    }

    private int run() throws Exception {
        out.printf(Locale.ROOT, "sluice bench quotas: %d s per run after %d s of warm-up through each proxy; flooder limited to %s produce and fetch; steady tenant %d records/s of %d B;"
                + " %d cores; load average %s%n", settings.seconds(), settings.warmupSeconds(), mb(settings.floodLimit()), settings.steadyRate(), settings.recordBytes(),
                Runtime.getRuntime().availableProcessors(), RunEnvironment.loadAverages());
        PythonEnvironment.Ready python;
        try {
            python = PythonEnvironment.prepare();
        } catch (PythonEnvironment.UnavailableException e) {
            out.println("sluice bench quotas: the librdkafka consumers need Python 3 with confluent-kafka: " + e.getMessage());
            return 1;
        }
        Path work = Files.createTempDirectory("sluice-bench-quotas-");
        Path script = work.resolve("librdkafka_tenant.py");
        try (InputStream in = QuotasBench.class.getResourceAsStream("librdkafka_tenant.py")) {
            Files.copy(in, script);
        }
        String secret = JwtBenchCredentials.newSecret();
        String steadyToken = JwtBenchCredentials.mint(secret, STEADY, GRANT);
        String floodToken = JwtBenchCredentials.mint(secret, FLOODER, GRANT);
        List<Run> runs = new ArrayList<>();
        try (BenchKafka kafka = BenchKafka.open(settings.kafka());
             Proxies proxies = Proxies.start(settings.launcher(), kafka.bootstrapServers(), secret, quotasFilter())) {
            Proxy plain = proxies.plain();
            Proxy quotas = proxies.quotas();
            out.printf("%s; proxy without quotas pid %d at %s, with quotas pid %d at %s%n", kafka.describe(), plain.process().pid(), plain.bootstrap(),
                    quotas.process().pid(), quotas.bootstrap());
            if (settings.warmupSeconds() > 0) {
                run("warm-up without quotas (not counted)", settings.warmupSeconds(), kafka, plain.bootstrap(), python, script, steadyToken, floodToken);
                run("warm-up with quotas (not counted)", settings.warmupSeconds(), kafka, quotas.bootstrap(), python, script, steadyToken, floodToken);
            }
            runs.add(run("solo", kafka, plain.bootstrap(), python, script, steadyToken, null));
            runs.add(run("flood, no quotas", kafka, plain.bootstrap(), python, script, steadyToken, floodToken));
            runs.add(run("flood, quotas", kafka, quotas.bootstrap(), python, script, steadyToken, floodToken));
        } finally {
            Files.deleteIfExists(script);
            Files.deleteIfExists(work);
        }
        summary(runs);
        return runs.stream().anyMatch(r -> r.lost() > 0 || r.errors() > 0) ? 1 : 0;
    }

    private String quotasFilter() {
        return """
                - name: quotas
                  type: Quotas
                  config:
                    overrides:
                      %s: {produceBytesPerSecond: %d, fetchBytesPerSecond: %d}
                """.formatted(FLOODER, settings.floodLimit(), settings.floodLimit());
    }

    private Run run(String name, BenchKafka kafka, String bootstrap, PythonEnvironment.Ready python, Path script, String steadyToken,
                    String floodToken) throws Exception {
        return run(name, settings.seconds(), kafka, bootstrap, python, script, steadyToken, floodToken);
    }

    private Run run(String name, int seconds, BenchKafka kafka, String bootstrap, PythonEnvironment.Ready python, Path script, String steadyToken,
                    String floodToken) throws Exception {
        out.printf("%n== run '%s' ==%n", name);
        String suffix = runId + "-" + name.replaceAll("[^a-z]+", "-").replaceAll("-+$", "");
        String steadyTopic = "quotas-steady-" + suffix;
        String floodTopic = "quotas-flood-" + suffix;
        BenchTopics.create(kafka.bootstrapServers(), steadyTopic, 1);
        if (floodToken != null) {
            BenchTopics.create(kafka.bootstrapServers(), floodTopic, 1);
        }
        Duration drain = Duration.ofSeconds(60L + seconds);
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
        try (TenantConsumer steadyConsumer = TenantConsumer.start(python, script, bootstrap, steadyTopic, "quotas-steady-" + suffix, "steady-consumer",
                steadyToken, drain);
             TenantConsumer floodConsumer = floodToken == null ? null : TenantConsumer.start(python, script, bootstrap, floodTopic,
                     "quotas-flood-" + suffix, "flooder-consumer", floodToken, drain);
             TenantProducer steady = new TenantProducer(bootstrap, JwtBenchCredentials.clientConfig(steadyToken), steadyTopic, settings.recordBytes(), false);
             TenantProducer flood = floodToken == null ? null
                     : new TenantProducer(bootstrap, JwtBenchCredentials.clientConfig(floodToken), floodTopic, settings.recordBytes(), true)) {
            long started = System.nanoTime();
            long[] last = {0, 0};
            progress.scheduleAtFixedRate(() -> {
                long steadySent = steady.sent();
                long floodSent = flood == null ? 0 : flood.sent();
                out.printf(Locale.ROOT, "%5.1f s  steady %6d records/s  flooder %8.2f MB/s sent%n", (System.nanoTime() - started) / 1e9,
                        steadySent - last[0], (floodSent - last[1]) * settings.recordBytes() / 1e6);
                last[0] = steadySent;
                last[1] = floodSent;
            }, 1, 1, TimeUnit.SECONDS);
            CompletableFuture<TenantProducer.Figures> flooding = flood == null ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.supplyAsync(() -> flood.flood(seconds));
            TenantProducer.Figures steadyFigures = steady.steady(seconds, settings.steadyRate());
            TenantProducer.Figures floodFigures = join(flooding);
            progress.shutdownNow();
            out.println("producers done; waiting for the consumers to read every acknowledged record");
            JsonNode steadyRead = steadyConsumer.finish(steadyFigures.acked());
            JsonNode floodRead = floodConsumer == null ? null : floodConsumer.finish(floodFigures.acked());
            Run run = new Run(name, steadyFigures, steadyRead, floodFigures, floodRead);
            out.printf(Locale.ROOT, "run '%s': steady p99 %.1f ms end to end; flooder %s; errors %d, lost %d%n", name,
                    steadyRead.get("latencyMs").get("p99").asDouble(), floodFigures == null ? "-" : String.format(Locale.ROOT, "%.2f MB/s", floodFigures.mbPerSecond()),
                    run.errors(), run.lost());
            return run;
        } finally {
            progress.shutdownNow();
        }
    }

    private static <T> T join(CompletableFuture<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private void summary(List<Run> runs) {
        double limit = settings.floodLimit() / 1e6;
        out.println();
        out.printf(Locale.ROOT, "== sluice bench quotas: %d s per run, flooder limit %.2f MB/s produce and fetch, steady %d records/s; load average %s ==%n",
                settings.seconds(), limit, settings.steadyRate(), RunEnvironment.loadAverages());
        out.println("| run | flooder produce MB/s | flooder fetch MB/s | steady produce ack p50 / p99 ms | steady end-to-end p50 / p99 ms"
                + " | steady records/s | throttle: flooder producer max ms, consumer reports | errors | lost |");
        out.println("|---|---|---|---|---|---|---|---|---|");
        for (Run run : runs) {
            TenantProducer.Figures s = run.steady();
            JsonNode latency = run.steadyConsumer().get("latencyMs");
            String floodProduce = run.flood() == null ? "-" : String.format(Locale.ROOT, "%.2f", run.flood().mbPerSecond());
            String floodFetch = run.floodConsumer() == null ? "-" : String.format(Locale.ROOT, "%.2f", fetchMbPerSecond(run.floodConsumer()));
            String throttle = run.flood() == null ? "-" : String.format(Locale.ROOT, "%.0f ms, %d", run.flood().throttleMaxMs(),
                    run.floodConsumer().get("throttle").get("count").asLong());
            out.printf(Locale.ROOT, "| %s | %s | %s | %.1f / %.1f | %.1f / %.1f | %.1f | %s | %d | %d |%n", run.name(), floodProduce, floodFetch,
                    s.ackLatencyMicros().getValueAtPercentile(50) / 1000.0, s.ackLatencyMicros().getValueAtPercentile(99) / 1000.0,
                    latency.get("p50").asDouble(), latency.get("p99").asDouble(), s.acked() / s.seconds(), throttle, run.errors(), run.lost());
        }
        Run quoted = runs.get(runs.size() - 1);
        Run solo = runs.get(0);
        double achieved = quoted.flood().mbPerSecond();
        double ratio = achieved / limit;
        out.printf(Locale.ROOT, "flooder with quotas: %.2f MB/s produced = %.1f %% of its limit (%s the +/-10 %% band)%n", achieved, 100 * ratio,
                Math.abs(ratio - 1) <= 0.10 ? "within" : "outside");
        out.printf(Locale.ROOT, "steady tenant's end-to-end p99: %.1f ms solo, %.1f ms with the flooder unquoted, %.1f ms with quotas (%.2fx solo)%n",
                p99(solo), p99(runs.get(1)), p99(quoted), p99(quoted) / p99(solo));
        out.printf("errors %d, lost records %d%n", runs.stream().mapToLong(Run::errors).sum(), runs.stream().mapToLong(Run::lost).sum());
    }

    /** The consumer's rate from its first record to its last: it reads on after the producer stopped, until it has them all. */
    private double fetchMbPerSecond(JsonNode consumer) {
        double seconds = consumer.get("seconds").asDouble();
        return seconds <= 0 ? 0 : consumer.get("records").asLong() * (double) settings.recordBytes() / 1e6 / seconds;
    }

    private static double p99(Run run) {
        return run.steadyConsumer().get("latencyMs").get("p99").asDouble();
    }

    private static String mb(long bytesPerSecond) {
        return String.format(Locale.ROOT, "%.2f MB/s", bytesPerSecond / 1e6);
    }

    /** The two proxies, started side by side (each JVM's start-up is mostly waiting on its own class loading). */
    private record Proxies(Proxy plain, Proxy quotas) implements AutoCloseable {

        static Proxies start(String launcher, String kafkaBootstrap, String secret, String quotasFilter) throws Exception {
            CompletableFuture<Proxy> quoted = CompletableFuture.supplyAsync(() -> {
                try {
                    return Proxy.start(launcher, kafkaBootstrap, secret, quotasFilter);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            Proxy plain;
            try {
                plain = Proxy.start(launcher, kafkaBootstrap, secret, "");
            } catch (Exception e) {
                quoted.whenComplete((proxy, error) -> {
                    if (proxy != null) {
                        proxy.close();
                    }
                });
                throw e;
            }
            try {
                return new Proxies(plain, join(quoted));
            } catch (Exception e) {
                plain.close();
                throw e;
            }
        }

        @Override
        public void close() {
            quotas.close();
            plain.close();
        }
    }

    /** One proxy in a child JVM, the demo's with JwtAuth, then {@code moreFilters} (YAML items of filterDefinitions, at column 0). */
    private record Proxy(LocalProxy process, String bootstrap) implements AutoCloseable {

        static Proxy start(String launcher, String kafkaBootstrap, String secret, String moreFilters) throws IOException, InterruptedException {
            String bootstrap = "127.0.0.1:" + FreePorts.block(8);
            int management = FreePorts.block(1);
            String definitions = """
                    - name: jwt
                      type: JwtAuth
                      config:
                        hmacSecret: ${%s}
                        issuer: %s
                        audience: %s
                    """.formatted(JwtBenchCredentials.SECRET_VARIABLE, JwtBenchCredentials.ISSUER, JwtBenchCredentials.ISSUER) + moreFilters;
            String yaml = DemoProxyConfig.withFilters(kafkaBootstrap, bootstrap, management, definitions,
                    moreFilters.isEmpty() ? List.of("jwt") : List.of("jwt", "quotas"));
            return new Proxy(LocalProxy.start(launcher, yaml, management, List.of("-Xmx512m", "-XX:+UseParallelGC"),
                    Map.of(JwtBenchCredentials.SECRET_VARIABLE, secret)), bootstrap);
        }

        @Override
        public void close() {
            process.close();
        }
    }
}
