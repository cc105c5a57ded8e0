package io.sluice.app.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.cli.KafkaOption;
import io.sluice.cli.ScenarioOptions;
import io.sluice.omb.scenario.KroxyliciousOmbRun;

/**
 * {@code sluice bench scenario kroxylicious-omb}: Kroxylicious's performance page (seed 002) run here. Its
 * OpenMessaging Benchmark workloads, 1 KiB messages on 1 topic / 1 partition at several rates and on 10 topics, go to
 * the broker directly (the baseline), through the passthrough proxy and through the proxy with RecordEncryption
 * calling Vault Transit; each run reports the seed's figures and how many KMS calls it cost. The work is in
 * {@link KroxyliciousOmbRun}, which names the types only lib-extra/ holds (picocli reflects on this class at start-up).
 */
@Command(name = "kroxylicious-omb", description = {"Kroxylicious's OMB scenario (seed 002): 1 KiB messages through the broker, the passthrough proxy"
        + " and RecordEncryption with Vault Transit; publish latency avg and p99, E2E avg, publish rate, the delta vs the broker, KMS calls per run.",
        "Needs OpenMessaging Benchmark built from source (OMB_HOME or --omb-home). The KMS is Vault Transit at VAULT_ADDR (with VAULT_TOKEN;"
                + " VAULT_TRANSIT_MOUNT, default transit) when set, else an in-process stand-in speaking Vault's HTTP API."})
public final class KroxyliciousOmbCommand implements Callable<Integer> {

    static final String NAME = KroxyliciousOmbRun.NAME;

    @Mixin
    ScenarioOptions options;

    @Mixin
    KafkaOption kafka;

    @Option(names = "--rates", paramLabel = "MSG_PER_S,...", defaultValue = "10000,25000", split = ",",
            description = "1 topic, 1 partition, 1 KiB: the producer rates to run, msg/s (default: ${DEFAULT-VALUE}; the seed: 34000,36000,37200).")
    int[] rates;

    @Option(names = "--topics", paramLabel = "N", defaultValue = "10",
            description = "The multi-topic workload's topics, 1 partition each; 0 leaves it out (default: ${DEFAULT-VALUE}).")
    int topics;

    // The seed's page says 5,000 msg/s per topic but reports OMB's aggregate publish rate as 5,002 msg/s: 500 per topic
    // is what its figures show was run. --topic-rate 5000 runs the other reading (50,000 msg/s in all).
    @Option(names = "--topic-rate", paramLabel = "MSG_PER_S", defaultValue = "500",
            description = "The multi-topic workload's rate per topic (default: ${DEFAULT-VALUE}, 5,000 msg/s in all, the seed's reported publish rate).")
    int topicRate;

    @Option(names = "--warmup-minutes", paramLabel = "M", defaultValue = "1", description = "OMB's warm-up per run (default: ${DEFAULT-VALUE}).")
    int warmupMinutes;

    @Option(names = "--test-minutes", paramLabel = "M", defaultValue = "1", description = "OMB's measured period per run (default: ${DEFAULT-VALUE}).")
    int testMinutes;

    @Option(names = "--omb-home", paramLabel = "DIR", defaultValue = "${env:OMB_HOME}",
            description = "The OpenMessaging Benchmark build (default: $OMB_HOME).")
    String ombHome;

    @Option(names = "--margin-minutes", paramLabel = "M", defaultValue = "5",
            description = "Time allowed beyond each run's own duration before it counts as hung (default: ${DEFAULT-VALUE}).")
    int marginMinutes;

    @Option(names = "--kms", paramLabel = "KIND", defaultValue = "vault",
            description = "The encrypting proxy's KMS (default: ${DEFAULT-VALUE}): vault (VAULT_ADDR and VAULT_TOKEN, else the in-process Vault Transit stand-in)"
                    + " or aws (SLUICE_AWS_KMS_KEY_ID and AWS_REGION, else moto, installed into a Python venv on first use).")
    String kms;

    private final PrintStream out;

    public KroxyliciousOmbCommand() {
        this(System.out);
    }

    KroxyliciousOmbCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        return KroxyliciousOmbRun.run(new KroxyliciousOmbRun.Settings(Main.class.getName(), options, kafka.given(), rates, topics, topicRate,
                warmupMinutes, testMinutes, ombHome, marginMinutes, kms), out);
    }
}
