package io.sluice.bench.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Flight Recorder recording of another JVM (a proxy child), started and stopped with {@code jcmd} from this JVM's
 * own JDK, so that only the window between the two is recorded: the measured rounds, not start-up or warm-up. JFR's
 * {@code profile} settings sample Java stacks every 10 ms (20 ms with {@code default}). jcmd rather than the attach
 * API in-process: the attach API's command channel is internal to the JDK.
 */
public final class JfrRecording {

    private static final String NAME = "sluice-bench";
    private static final long JCMD_TIMEOUT_SECONDS = 60;

    private final Path jcmd;
    private final long pid;
    private final Path file;

    private JfrRecording(Path jcmd, long pid, Path file) {
        this.jcmd = jcmd;
        this.pid = pid;
        this.file = file;
    }

    /** jcmd beside this JVM's java; empty on a JRE, which has none. */
    public static Optional<Path> jcmd() {
        Path candidate = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (Files.isExecutable(candidate)) {
            return Optional.of(candidate);
        }
        return ProcessHandle.current().info().command()
                .map(java -> Path.of(java).resolveSibling("jcmd"))
                .filter(Files::isExecutable);
    }

    /** Starts recording JVM {@code pid}; {@link #stop()} writes the recording to {@code file}. */
    public static JfrRecording start(Path jcmd, long pid, Path file) throws IOException, InterruptedException {
        JfrRecording recording = new JfrRecording(jcmd, pid, file);
        recording.run("JFR.start", "name=" + NAME, "settings=profile");
        return recording;
    }

    /** Stops the recording and returns the file it was written to. */
    public Path stop() throws IOException, InterruptedException {
        run("JFR.stop", "name=" + NAME, "filename=" + file.toAbsolutePath());
        if (!Files.isRegularFile(file)) {
            throw new IOException("jcmd " + pid + " JFR.stop wrote no recording at " + file);
        }
        return file;
    }

    public long pid() {
        return pid;
    }

    private void run(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        if (!process.waitFor(JCMD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", line) + " did not finish in " + JCMD_TIMEOUT_SECONDS + " s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        // jcmd exits 0 even when the JVM refuses the command, so its answer is checked too.
        if (process.exitValue() != 0 || output.contains("Could not") || output.contains("Exception")) {
            throw new IOException(String.join(" ", line) + " failed (exit " + process.exitValue() + "): " + output);
        }
    }
}
