package io.sluice.omb.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One OMB run in local mode, watched: its output copied to a log, the start of the measured traffic noted from
 * OMB's "Starting benchmark traffic" line, and the process stopped once its result file is complete. In local mode
 * OMB does not exit by itself after writing the result (its worker threads stay up), so the result is the signal.
 */
public final class OmbProcess {

    static final String BENCHMARK_TRAFFIC = "Starting benchmark traffic";
    static final String WORKLOAD_FAILED = "Failed to run the workload";
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What was seen: when the measured traffic began (if OMB said so) and when the result appeared. */
    public record Outcome(Path result, Long benchmarkTrafficFromMs, long resultAtMs) {
    }

    /** Something the caller should do when measuring starts, e.g. start counting a proxy's GC. */
    public interface WindowListener {
        void windowStarts();
    }

    private final List<String> command;
    private final Path workingDir;
    private final Map<String, String> env;
    private final Path log;

    public OmbProcess(List<String> command, Path workingDir, Map<String, String> env, Path log) {
        this.command = command;
        this.workingDir = workingDir;
        this.env = env;
        this.log = log;
    }

    /**
     * Runs until {@code result} holds a complete OMB result, then stops OMB.
     *
     * @throws IOException      when OMB exits or reports a failure first, with the end of its log
     * @throws TimeoutException when no result appears in time
     */
    public Outcome run(Path result, Duration timeout, WindowListener listener) throws IOException, InterruptedException, TimeoutException {
        Files.deleteIfExists(result);
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        Watcher watcher = new Watcher(process, listener);
        Thread reader = new Thread(watcher, "omb-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                if (complete(result)) {
                    return new Outcome(result, watcher.benchmarkTrafficFromMs, System.currentTimeMillis());
                }
                if (watcher.failed) {
                    throw new IOException("OMB reported '" + WORKLOAD_FAILED + "'; from " + log + ":\n" + watcher.tail());
                }
                if (!process.isAlive()) {
                    // Read the rest of its output first: it may have reported a failure, or written the result as it exited.
                    reader.join(5_000);
                    if (complete(result)) {
                        return new Outcome(result, watcher.benchmarkTrafficFromMs, System.currentTimeMillis());
                    }
                    if (watcher.failed) {
                        throw new IOException("OMB reported '" + WORKLOAD_FAILED + "'; from " + log + ":\n" + watcher.tail());
                    }
                    throw new IOException("OMB exited with code " + process.exitValue() + " before writing " + result + "; from " + log + ":\n" + watcher.tail());
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("OMB wrote no result within " + timeout.toMinutes() + " min; from " + log + ":\n" + watcher.tail());
                }
                Thread.sleep(POLL.toMillis());
            }
        } finally {
            stop(process);
            reader.join(5_000);
        }
    }

    /** Complete means it parses as a JSON object with OMB's series in it: a file still being written does not. */
    static boolean complete(Path result) {
        if (!Files.isRegularFile(result)) {
            return false;
        }
        try {
            JsonNode root = JSON.readTree(result.toFile());
            return root != null && root.isObject() && root.has("publishRate") && root.has("aggregatedEndToEndLatencyMax");
        } catch (IOException partial) {
            return false;
        }
    }

    /** OMB's script starts java as its child: stop the whole tree, politely first, by force after a grace period. */
    static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (ProcessHandle handle : tree) {
            try {
                handle.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                handle.destroyForcibly();
            }
        }
    }

    /** Copies OMB's output to the log, keeping its last lines and watching for the lines that matter. */
    private final class Watcher implements Runnable {
        private final Process process;
        private final WindowListener listener;
        private final Deque<String> last = new ArrayDeque<>();
        volatile Long benchmarkTrafficFromMs;
        volatile boolean failed;

        Watcher(Process process, WindowListener listener) {
            this.process = process;
            this.listener = listener;
        }

        @Override
        public void run() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
                String line;
                while ((line = in.readLine()) != null) {
                    out.println(line);
                    synchronized (last) {
                        last.addLast(line);
                        if (last.size() > 40) {
                            last.removeFirst();
                        }
                    }
                    if (benchmarkTrafficFromMs == null && line.contains(BENCHMARK_TRAFFIC)) {
                        benchmarkTrafficFromMs = System.currentTimeMillis();
                        listener.windowStarts();
                    }
                    if (line.contains(WORKLOAD_FAILED)) {
                        failed = true;
                    }
                }
            } catch (IOException e) {
                // The process was stopped; what was read is in the log.
            }
        }

        String tail() {
            synchronized (last) {
                return String.join("\n", last);
            }
        }
    }
}
