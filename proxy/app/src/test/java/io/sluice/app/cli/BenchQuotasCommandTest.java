package io.sluice.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short {@code bench quotas} run against a real broker, two proxies in child JVMs, kafka-clients producers and
 * librdkafka consumers: the summary has its three runs side by side, nothing was lost or failed, and the quoted
 * flooder's clients saw throttling. Not speed: the figures are the lead's to measure on a quiet machine.
 */
class BenchQuotasCommandTest {

    @Test
    void threeShortRunsSideBySideWithNoErrorNoLossAndTheFlooderThrottled() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchQuotasCommand(new PrintStream(captured, true, StandardCharsets.UTF_8))))
                .execute("--duration", "2", "--warmup", "0", "--flood-limit", "0.5", "--steady-rate", "50", "--kafka", SharedKafka.bootstrap());
        String output = captured.toString(StandardCharsets.UTF_8);
        System.out.println(output);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("== sluice bench quotas: 2 s per run, flooder limit 0.50 MB/s", "| run | flooder produce MB/s |",
                "errors 0, lost records 0", "flooder with quotas: ", "steady tenant's end-to-end p99: ");
        assertThat(output).containsPattern("(?m)^\\| solo \\| - \\| - \\| [0-9.]+ / [0-9.]+ \\| [0-9.]+ / [0-9.]+ \\| [0-9.]+ \\| - \\| 0 \\| 0 \\|$");
        assertThat(output).containsPattern("(?m)^\\| flood, no quotas \\| [0-9.]+ \\| [0-9.]+ \\| .* \\| 0 \\| 0 \\|$");
        Matcher quoted = Pattern.compile("(?m)^\\| flood, quotas \\| [0-9.]+ \\| [0-9.]+ \\| .* \\| ([0-9]+) ms, ([0-9]+) \\| 0 \\| 0 \\|$").matcher(output);
        assertThat(quoted.find()).as(output).isTrue();
        assertThat(Long.parseLong(quoted.group(1))).as("the flooder's kafka-clients producer saw throttle_time_ms").isPositive();
        assertThat(Long.parseLong(quoted.group(2))).as("its librdkafka consumer reported throttles").isPositive();
    }
}
