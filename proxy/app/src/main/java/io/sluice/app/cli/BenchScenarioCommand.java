package io.sluice.app.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import io.sluice.app.cli.KafScaleCommand;
import io.sluice.app.cli.KroxyliciousOmbCommand;
import io.sluice.bench.bridge.scenario.BridgeFailoverScenario;
import io.sluice.bench.bridge.scenario.KafkoramaFanoutScenario;
import io.sluice.bench.bridge.scenario.KafkoramaPublishScenario;
import io.sluice.bench.bridge.scenario.Lightstreamer1Command;
import io.sluice.bench.bridge.scenario.Lightstreamer2Command;
import io.sluice.bench.bridge.scenario.MigratoryDataGamingScenario;

/**
 * {@code sluice bench scenario NAME}: the published benchmarks Sluice answers (the seeds), each run the way its
 * write-up ran it, scaled to this machine, and reported in its shape beside its figures. Each scenario composes the
 * benchmarks that exist ({@code bench bridge}, {@code bench proxy}, {@code omb}) rather than copying them.
 */
@Command(name = "scenario", description = {"The seeds' published benchmark scenarios, run here and reported beside their figures.",
        "Each waits for a quiet machine, prints progress and a summary, writes its result file and, with --record, "
                + "appends to its table in docs/performance.md."},
        subcommands = {KafkoramaFanoutScenario.class, KafkoramaPublishScenario.class, MigratoryDataGamingScenario.class,
                Lightstreamer1Command.class, Lightstreamer2Command.class, KroxyliciousOmbCommand.class, KafScaleCommand.class,
                BridgeFailoverScenario.class})
public final class BenchScenarioCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a scenario: " + String.join(", ", spec.subcommands().keySet()));
    }
}
