package io.sluice.app.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import io.sluice.app.cli.BenchIdleCommand;
import io.sluice.app.cli.BenchScenarioCommand;
import io.sluice.app.demo.DemoCommand;
import io.sluice.bench.bridge.BenchBridgeCommand;
import io.sluice.build.BuildInfo;
import io.sluice.cli.ExitCodes;

/**
 * {@code sluice}: the root of the command tree. The app knows every command (the bridge benchmark's live beside its load
 * generator, in sluice-bridge-bench), so the tree is plain picocli subcommands rather than a
 * {@link java.util.ServiceLoader} registry: one place lists them, the compiler checks it, and each
 * command's options are declared once and printed by {@code --help}. {@code --help}, {@code --version}, the synopsis
 * heading and the exit-code footer are inherited by every subcommand.
 */
@Command(name = "sluice", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true, versionProvider = SluiceCommand.Version.class,
        synopsisHeading = "usage: ", footer = ExitCodes.HELP_FOOTER, usageHelpAutoWidth = true,
        description = "Kafka protocol proxy and WebSocket bridge.",
        commandListHeading = "%nCommands:%n",
        subcommands = {ProxyCommand.class, BridgeCommand.class, DemoCommand.class, SluiceCommand.Bench.class, SizeCommand.class, OmbCommand.class,
                HelpCommand.class})
public final class SluiceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Without a command: the usage, as {@code help} prints it. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return ExitCodes.OK;
    }

    /** {@code sluice bench}: only a group; one of its benchmarks must be named. */
    @Command(name = "bench", description = "Benchmarks: proxy against the broker, encryption against passthrough, the bridge's fan-out, an idle proxy, quotas between tenants, the seeds' scenarios.",
            subcommands = {BenchProxyCommand.class, BenchEncryptionCommand.class, BenchBridgeCommand.class, BenchIdleCommand.class, BenchQuotasCommand.class,
                    BenchScenarioCommand.class})
    static final class Bench implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark: " + String.join(", ", spec.subcommands().keySet()));
        }
    }

    /** {@code sluice <version> (commit <sha>)}, from what the build recorded. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {BuildInfo.current().toString()};
        }
    }
}
