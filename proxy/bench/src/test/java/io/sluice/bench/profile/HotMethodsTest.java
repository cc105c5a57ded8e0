package io.sluice.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.testkit.JavaCommand;

class HotMethodsTest {

    @Test
    void aRecordingOfABusyJvmNamesTheMethodItSpinsIn(@TempDir Path dir) throws Exception {
        Optional<Path> jcmd = JfrRecording.jcmd();
        assumeTrue(jcmd.isPresent(), "no jcmd: this JVM is not a JDK");
        Process spinner = new ProcessBuilder(JavaCommand.of(List.of("-Xmx64m"), Spinner.class.getName(), List.of()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("spinner.log").toFile()).start();
        try {
            // jcmd needs the JVM's attach listener, which exists once the JVM has started; retried until then.
            JfrRecording recording = startWhenAttachable(jcmd.get(), spinner.pid(), dir.resolve("spinner.jfr"));
            long samplesWanted = 50;
            HotMethods.Profile profile;
            int attempts = 0;
            do {
                Thread.sleep(500);
                Path file = recording.stop();
                profile = HotMethods.read(file, 20);
                if (profile.samples() < samplesWanted && ++attempts < 40) {
                    recording = JfrRecording.start(jcmd.get(), spinner.pid(), dir.resolve("spinner.jfr"));
                }
            } while (profile.samples() < samplesWanted && attempts < 40);

            assertThat(profile.samples()).as("execution samples of a JVM spinning on a core").isGreaterThanOrEqualTo(samplesWanted);
            HotMethods.Method hottest = profile.top().get(0);
            assertThat(hottest.name()).isEqualTo(Spinner.class.getName() + ".spin");
            assertThat(hottest.total()).isGreaterThanOrEqualTo(hottest.self());
            assertThat(profile.top()).extracting(HotMethods.Method::self).isSortedAccordingTo((a, b) -> Long.compare(b, a));
        } finally {
            spinner.destroyForcibly();
            spinner.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theProfilerPrintsTheTopMethodsOfEachTargetAndNothingWithoutTargets(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProxyProfiler none = new ProxyProfiler(Map.of(), dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        none.measuringStarts();
        none.measuringEnds();
        none.print();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEmpty();

        Optional<Path> jcmd = JfrRecording.jcmd();
        assumeTrue(jcmd.isPresent(), "no jcmd: this JVM is not a JDK");
        Process spinner = new ProcessBuilder(JavaCommand.of(List.of("-Xmx64m"), Spinner.class.getName(), List.of()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("spinner.log").toFile()).start();
        try {
            startWhenAttachable(jcmd.get(), spinner.pid(), dir.resolve("probe.jfr")).stop();
            ProxyProfiler profiler = new ProxyProfiler(Map.of("spinner", spinner.pid()), dir.resolve("profiles"),
                    new PrintStream(bytes, true, StandardCharsets.UTF_8));
            profiler.measuringStarts();
            Thread.sleep(2000);
            profiler.measuringEnds();
            profiler.print();
        } finally {
            spinner.destroyForcibly();
            spinner.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("== profile of spinner: top ").contains("self %")
                .contains(Spinner.class.getName() + ".spin");
    }

    private static JfrRecording startWhenAttachable(Path jcmd, long pid, Path file) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return JfrRecording.start(jcmd, pid, file);
            } catch (java.io.IOException e) {
                if (attempt >= 50) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }
}
