package io.sluice.app.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.scenario.KafScaleRun;
import io.sluice.cli.KafkaOption;
import io.sluice.cli.ScenarioOptions;

/**
 * {@code sluice bench scenario kafscale}: KafScale's benchmarks (seed 004) run against the broker and through the
 * proxy: the hot path (produce and consume at once), a backlog read from the beginning, and offset recovery: a
 * consumer restarted in its group, and the proxy restarted under load. The work is in {@link KafScaleRun}, which
 * names the types only lib-extra/ holds (picocli reflects on this class at start-up).
 */
@Command(name = "kafscale", description = {"KafScale's scenarios (seed 004), broker vs proxy: produce and consume throughput and latency,"
        + " a backlog read from the beginning, and offset recovery (a consumer restarted in its group; the proxy restarted under load):"
        + " resume time, records lost, duplicates."})
public final class KafScaleCommand implements Callable<Integer> {

    static final String NAME = KafScaleRun.NAME;

    @Mixin
    ScenarioOptions options;

    @Mixin
    KafkaOption kafka;

    @Option(names = "--records", paramLabel = "N", defaultValue = "500000",
            description = "Records in the hot path, then read back as the backlog (default: ${DEFAULT-VALUE}; the seed: 2000 and 4000).")
    int records;

    @Option(names = "--record-bytes", paramLabel = "B", defaultValue = "256", description = "Record size, at least 16 (default: ${DEFAULT-VALUE}, the seed's).")
    int recordBytes;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3", description = "Partitions per topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--rate", paramLabel = "MSG_PER_S", defaultValue = "2000",
            description = "The steady produce rate during the recovery tests (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--phase-seconds", paramLabel = "S", defaultValue = "10",
            description = "How long the recovery tests run before and after each restart (default: ${DEFAULT-VALUE}).")
    int phaseSeconds;

    private final PrintStream out;

    public KafScaleCommand() {
        this(System.out);
    }

    KafScaleCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        return KafScaleRun.run(new KafScaleRun.Settings(Main.class.getName(), options, kafka.given(), records, recordBytes, partitions, rate, phaseSeconds), out);
    }
}
