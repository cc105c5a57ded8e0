package io.sluice.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every scenario takes besides its own parameters: where results go, the quiet-machine gate, the docs table. Read
 * by the scenario frame (io.sluice.testkit.bench.ScenarioReport); here for the reason {@link KafkaOption} is.
 */
public final class ScenarioOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--results", paramLabel = "DIR", defaultValue = "bench-results/scenarios",
            description = "Where the run's result file goes, as DIR/SCENARIO/TIME.json (default: ${DEFAULT-VALUE}).")
    Path results;

    @Option(names = "--record", paramLabel = "FILE", arity = "0..1", fallbackValue = "docs/performance.md",
            description = "Append the run's rows to the scenario's table in FILE (default FILE: docs/performance.md); "
                    + "refused when the machine was not quiet at the start.")
    Path record;

    @Option(names = "--quiet-below", paramLabel = "LOAD", defaultValue = "1.0",
            description = "Wait for the 1-minute load average to drop below LOAD before measuring (default: ${DEFAULT-VALUE}).")
    double quietBelow;

    @Option(names = "--quiet-wait", paramLabel = "S", defaultValue = "600",
            description = "Wait at most S seconds for it; then the run goes ahead and is marked not quiet (default: ${DEFAULT-VALUE}).")
    int quietWaitSeconds;

    /** Where the run's result file goes: {@code DIR/SCENARIO/TIME.json} under it. */
    public Path results() {
        return results;
    }

    /** The docs file whose table gets the run's rows, or null when not asked to record. */
    public Path record() {
        return record;
    }

    /** The 1-minute load average to wait to drop below before measuring. */
    public double quietBelow() {
        return quietBelow;
    }

    public Duration quietWait() {
        return Duration.ofSeconds(quietWaitSeconds);
    }

    /** The command as typed, for the record: {@code ./sluice bench scenario NAME ARGS}. */
    public String commandLine() {
        List<String> args = spec.commandLine().getParseResult() == null ? List.of() : spec.commandLine().getParseResult().originalArgs();
        // Run from the root command, the original arguments are the whole command line; run on its own (tests), only its options.
        String prefix = spec.parent() != null ? "./sluice " : "./sluice bench scenario " + spec.name() + " ";
        return (prefix + String.join(" ", args)).strip();
    }
}
