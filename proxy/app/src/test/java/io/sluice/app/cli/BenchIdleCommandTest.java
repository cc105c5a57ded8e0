package io.sluice.app.cli;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** A short idle run against a real broker and a proxy in a child JVM: both windows measured, the clients really connected. */
class BenchIdleCommandTest {

    @Test
    void measuresTheProxyAloneAndWithIdleClients() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchIdleCommand(new PrintStream(captured, true, StandardCharsets.UTF_8))))
                .execute("--seconds", "2", "--settle", "2", "--producers", "3", "--consumers", "2", "--kafka", SharedKafka.bootstrap());
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("| proxy | CPU |", "| no client |", "| 3 idle producers + 2 consumers long-polling |");
        // Connecting clients and serving their long polls costs the proxy something; a window it did not see would read 0.
        Matcher withClients = Pattern.compile("\\| 3 idle producers \\+ 2 consumers long-polling \\| ([0-9.]+) millicores \\|").matcher(output);
        assertThat(withClients.find()).as(output).isTrue();
        assertThat(Double.parseDouble(withClients.group(1))).isPositive();
    }
}
