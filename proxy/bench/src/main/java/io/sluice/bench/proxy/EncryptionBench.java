package io.sluice.bench.proxy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.sluice.bench.ProxyBenchmark;
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

    /** @param launcher the launcher class each child proxy runs ({@link LocalProxy}) */
    public static int run(ProxyBenchmark.Settings settings, String launcher) throws Exception {
        System.out.printf("sluice bench encryption: %s; %d cores%n", settings, Runtime.getRuntime().availableProcessors());
        String passthroughBootstrap = "127.0.0.1:" + FreePorts.block(8);
        String encryptionBootstrap = "127.0.0.1:" + FreePorts.block(8);
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults());
             LocalProxy passthrough = proxy(launcher, kafka, passthroughBootstrap, "");
             LocalProxy encryption = proxy(launcher, kafka, encryptionBootstrap, """
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
                     """)) {
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
        }
        return 0;
    }

    private static LocalProxy proxy(String launcher, LocalKafka kafka, String bootstrap, String filters) throws Exception {
        int management = FreePorts.block(1);
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
        return LocalProxy.start(launcher, yaml, management, List.of("-Xmx512m", "-XX:+UseParallelGC"));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
