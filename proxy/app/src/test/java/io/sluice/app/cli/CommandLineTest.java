package io.sluice.app.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import io.sluice.build.BuildInfo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command of the tree {@code bin/sluice} runs answers {@code --help} and {@code --version}, and names what it
 * does not know. The commands are walked from the tree itself, so a command added later is covered without a change.
 */
class CommandLineTest {

    /** Each command as the words that name it: [], [proxy], [bench, proxy], ... */
    static Stream<List<String>> commands() {
        List<List<String>> paths = new ArrayList<>();
        walk(Main.commandLine(), new ArrayList<>(), paths);
        return paths.stream();
    }

    private static void walk(CommandLine command, List<String> path, List<List<String>> paths) {
        paths.add(List.copyOf(path));
        command.getSubcommands().forEach((name, sub) -> {
            List<String> deeper = new ArrayList<>(path);
            deeper.add(name);
            walk(sub, deeper, paths);
        });
    }

    @Test
    void theTreeHoldsEveryCommandTheDocsUse() {
        assertThat(commands().map(p -> String.join(" ", p))).contains("", "proxy", "bridge", "demo", "bench", "bench proxy", "bench encryption",
                "bench bridge", "bench idle", "bench quotas", "bench scenario", "bench scenario kafkorama-fanout", "bench scenario lightstreamer-1", "size", "size bridge", "omb", "help");
    }

    @ParameterizedTest(name = "sluice {0} --help")
    @MethodSource("commands")
    void helpListsEveryOptionWithItsDefaultAndTheExitCodes(List<String> path) {
        Run run = run(path, "--help");

        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.out).startsWith("usage: sluice" + (path.isEmpty() ? "" : " " + String.join(" ", path)));
        assertThat(run.out.replaceAll("\\s+", " ")).contains("--help", "--version", "Exit codes: 0 success", "1 failure while running", "2 bad arguments or invalid configuration",
                        "143 stopped by SIGTERM")
                .doesNotContain("\u001b[");
        CommandSpec spec = command(path).getCommandSpec();
        for (OptionSpec option : spec.options()) {
            assertThat(run.out).as("%s lists %s", path, option.longestName()).contains(option.longestName()).doesNotContain("null");
            assertThat(option.description()).as("%s has a description", option.longestName()).isNotEmpty();
            if (option.defaultValue() != null && !option.defaultValue().startsWith("${env:")) {
                // Help wraps lines wherever a space or comma allows.
                assertThat(run.out.replaceAll("\\s+", "")).as("%s shows its default", option.longestName())
                        .contains(("default:" + option.defaultValue()).replaceAll("\\s+", ""));
            }
        }
    }

    @ParameterizedTest(name = "sluice {0} --version")
    @MethodSource("commands")
    void versionPrintsTheBuild(List<String> path) {
        Run run = run(path, "--version");

        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.out.strip()).isEqualTo(BuildInfo.current().toString()).matches("sluice \\S+ \\(commit \\S+\\)");
    }

    @ParameterizedTest(name = "sluice {0} --no-such-option")
    @MethodSource("commands")
    void anUnknownOptionIsAUsageErrorNamingIt(List<String> path) {
        Run run = run(path, "--no-such-option");

        assertThat(run.exit).as(run.out + run.err).isEqualTo(2);
        assertThat(run.err).contains("--no-such-option").contains("--help");
        assertThat(run.out).isEmpty();
    }

    @Test
    void anUnknownCommandIsAUsageErrorNamingIt() {
        Run run = run(List.of(), "no-such-command");
        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("unknown command 'no-such-command'").contains("proxy, bridge");

        Run bench = run(List.of("bench"), "nope");
        assertThat(bench.exit).isEqualTo(2);
        assertThat(bench.err).contains("sluice bench: unknown command 'nope'");
    }

    @Test
    void helpShowsTheUsageOfACommandAtAnyDepth() {
        Run run = run(List.of("help"), "bench", "proxy");

        assertThat(run.exit).isZero();
        assertThat(run.out).startsWith("usage: sluice bench proxy").contains("--rates", "default: 200000");
        assertThat(run(List.of("help"), "bench", "nope").exit).isEqualTo(2);
        assertThat(run(List.of(), "help").out).startsWith("usage: sluice").contains("proxy", "bench", "size");
    }

    @Test
    void benchProxyRefusesTheOneRunOptionsWithRatesNamingThem() {
        Run profile = run(List.of("bench", "proxy"), "--rates", "5", "--profile");
        assertThat(profile.exit).as(profile.out + profile.err).isEqualTo(2);
        assertThat(profile.err).contains("--profile belongs to the one-run comparison");

        Run relay = run(List.of("bench", "proxy"), "--rates", "5", "--targets", "direct,relay");
        assertThat(relay.exit).as(relay.out + relay.err).isEqualTo(2);
        assertThat(relay.err).contains("target relay is for the one-run comparison only");
    }

    @Test
    void aGroupWithoutItsCommandAndAMissingRequiredOptionAreUsageErrors() {
        Run bench = run(List.of("bench"));
        assertThat(bench.exit).isEqualTo(2);
        assertThat(bench.err).contains("name a benchmark: proxy, encryption, bridge");

        Run proxy = run(List.of("proxy"));
        assertThat(proxy.exit).isEqualTo(2);
        assertThat(proxy.err).contains("Missing required option: '--config=FILE'");

        Run notANumber = run(List.of("size"), "--runs", "x", "--headroom", "lots");
        assertThat(notANumber.exit).isEqualTo(2);
        assertThat(notANumber.err).contains("--headroom", "lots");
    }

    private static CommandLine command(List<String> path) {
        CommandLine command = Main.commandLine();
        for (String word : path) {
            command = command.getSubcommands().get(word);
        }
        return command;
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(List<String> path, String... more) {
        CommandLine root = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        root.setOut(new PrintWriter(out, true));
        root.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(path);
        args.addAll(List.of(more));
        int exit = root.execute(args.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }
}
