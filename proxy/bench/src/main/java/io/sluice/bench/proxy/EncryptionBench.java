package io.sluice.bench.proxy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.sluice.bench.ProxyBenchmark;
import io.sluice.bench.scenario.KmsCalls;
import io.sluice.bench.scenario.ScenarioKms;
import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalKafka;
import io.sluice.testkit.LocalProxy;

/**
 * What {@code sluice bench encryption} runs (the app's BenchEncryptionCommand). A class of its own because it uses the demo broker and the benchmark harness,
 * which only {@code lib-extra/} holds: picocli reflects on every command's methods at start-up, so the command class
 * names none of their types and {@code sluice proxy} starts without them.
 */
public final class EncryptionBench {

    private EncryptionBench() {
    }

    /** The KMS kinds {@code --kms} takes: the in-process one (default: no KMS round trips), or a KMS over its API. */
    public static final List<String> KMS_KINDS = List.of("inprocess", "vault", "aws");
    private static final String IN_PROCESS = """
            filterDefinitions:
              - name: encrypt
                type: RecordEncryption
                config:
                  topics: ["*"]
                  kek: bench
                  kms: InProcessKmsService
                  kmsConfig:
                    keys: [bench]
            defaultFilters: [encrypt]
            """;

    /** As {@link #run(ProxyBenchmark.Settings, String, String)} with the in-process KMS. */
    public static int run(ProxyBenchmark.Settings settings, String launcher) throws Exception {
        return run(settings, launcher, "inprocess");
    }

    /**
     * @param launcher the launcher class each child proxy runs ({@link LocalProxy})
     * @param kmsKind  {@code inprocess}, or {@code vault} / {@code aws} over their APIs ({@link ScenarioKms}: the Vault
     *                 stand-in or moto unless a real one is configured); the encrypting proxy's KMS calls are reported
     */
    public static int run(ProxyBenchmark.Settings settings, String launcher, String kmsKind) throws Exception {
        if (!KMS_KINDS.contains(kmsKind)) {
            throw new IllegalArgumentException("--kms: '" + kmsKind + "' is not one of " + KMS_KINDS);
        }
        System.out.printf("sluice bench encryption: %s; %d cores%n", settings, Runtime.getRuntime().availableProcessors());
        String passthroughBootstrap = "127.0.0.1:" + FreePorts.block(8);
        String encryptionBootstrap = "127.0.0.1:" + FreePorts.block(8);
        int encryptionManagement = FreePorts.block(1);
        try (ScenarioKms kms = kmsKind.equals("inprocess") ? null : ScenarioKms.from(kmsKind, System.getenv());
             LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults());
             LocalProxy passthrough = proxy(launcher, kafka, passthroughBootstrap, "", FreePorts.block(1), Map.of());
             LocalProxy encryption = proxy(launcher, kafka, encryptionBootstrap, kms == null ? IN_PROCESS : prepared(kms),
                     encryptionManagement, kms == null ? Map.of() : kms.proxyEnvironment())) {
            System.out.println("KMS: " + (kms == null ? "in-process (no KMS round trips)" : kms.description()));
            Optional<KmsCalls> servedBefore = kms == null ? Optional.empty() : kms.servedCalls();
            Map<String, String> targets = new LinkedHashMap<>();
            targets.put("passthrough", passthroughBootstrap);
            targets.put("encryption", encryptionBootstrap);
            System.out.printf("broker pid %d, passthrough proxy pid %d, encryption proxy pid %d%n", kafka.pid(), passthrough.pid(), encryption.pid());
            // Only one proxy carries load at a time; the idle one costs next to nothing, so the sum is the busy one's CPU.
            List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, kafka.bootstrapServers(), targets,
                    () -> CpuSampler.processCpuNanos(passthrough.pid()) + CpuSampler.processCpuNanos(encryption.pid()), System.out).run();
            Map<String, List<ProxyBenchmark.Phase>> byTarget = phases.stream()
                    .collect(Collectors.groupingBy(ProxyBenchmark.Phase::target, LinkedHashMap::new, Collectors.toList()));
            double plainMbs = median(byTarget.get("passthrough").stream().mapToDouble(ProxyBenchmark.Phase::mbPerSecond).toArray());
            double encMbs = median(byTarget.get("encryption").stream().mapToDouble(ProxyBenchmark.Phase::mbPerSecond).toArray());
            double plainCpu = median(byTarget.get("passthrough").stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray());
            double encCpu = median(byTarget.get("encryption").stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray());
            System.out.println();
            System.out.println("== summary (medians over " + settings.rounds() + " rounds) ==");
            System.out.printf("passthrough  %8.1f MB/s   proxy CPU %6.2f ms per MB moved = %5.2f millicores per MB/s%n", plainMbs, plainCpu, plainCpu);
            System.out.printf("encryption   %8.1f MB/s   proxy CPU %6.2f ms per MB moved = %5.2f millicores per MB/s%n", encMbs, encCpu, encCpu);
            System.out.printf("throughput ceiling ratio encryption/passthrough: %.1f %%%n", 100 * encMbs / plainMbs);
            // KMS calls over the whole run, as the encrypting proxy counted them (and the KMS served them, where it tells).
            System.out.printf("encrypting proxy's KMS calls: %s%s%n", KmsCalls.scrape(encryptionManagement),
                    servedBefore.map(b -> "; the KMS served " + kms.servedCalls().orElseThrow().since(b)).orElse(""));
        }
        return 0;
    }

    private static String prepared(ScenarioKms kms) throws Exception {
        kms.ensureKey("bench");
        return kms.filterDefinition("encrypt", "bench");
    }

    private static LocalProxy proxy(String launcher, LocalKafka kafka, String bootstrap, String filters, int management, Map<String, String> env)
            throws Exception {
        String yaml = """
                management:
                  port: %d
                virtualClusters:
                  - name: bench
                    targetCluster:
                      bootstrapServers: "%s"
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: "%s"
                %s""".formatted(management, kafka.bootstrapServers(), bootstrap, filters);
        return LocalProxy.start(launcher, yaml, management, List.of("-Xmx512m", "-XX:+UseParallelGC"), env);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
