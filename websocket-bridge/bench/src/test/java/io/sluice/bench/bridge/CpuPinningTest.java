package io.sluice.bench.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** {@code --pin} really binds every thread of the processes it names (checked in /proc), not just the first one. */
class CpuPinningTest {

    @Test
    void theBridgeGetsTheLastCpuAndEverythingElseTheOthers() throws Exception {
        int cpus = Runtime.getRuntime().availableProcessors();
        assumeTrue(cpus >= 2, "needs 2 CPUs");
        Process bridge = new ProcessBuilder("sleep", "60").start();
        Process other = new ProcessBuilder("sleep", "60").start();
        try {
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);
            CpuPinning pinning = CpuPinning.forThisMachine();
            pinning.pinBridge(bridge.pid(), out);
            pinning.pinOther(other.pid(), "Kafka broker", out);

            assertThat(allowedCpus(bridge.pid())).isEqualTo(Integer.toString(cpus - 1));
            assertThat(allowedCpus(other.pid())).isEqualTo(cpus == 2 ? "0" : "0-" + (cpus - 2));
            assertThat(said.toString(StandardCharsets.UTF_8)).contains("pinned the bridge (pid " + bridge.pid());
        } finally {
            bridge.destroyForcibly();
            other.destroyForcibly();
        }
    }

    private static String allowedCpus(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring("Cpus_allowed_list:".length()).trim())
                .findFirst().orElseThrow();
    }
}
