package io.sluice.bridge.sse;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The lines of an event stream read by a client we did not write (curl's output, the JDK client's body), collected
 * by a daemon thread so that a test can wait for the next line it cares about with a bound.
 */
public final class StreamLines {

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private StreamLines() {
    }

    public static StreamLines of(InputStream in) {
        StreamLines out = new StreamLines();
        out.start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    out.lines.add(line.stripTrailing());
                }
            }
            catch (Exception e) {
                // The stream or the process was closed.
            }
        });
        return out;
    }

    public static StreamLines of(Stream<String> body) {
        StreamLines out = new StreamLines();
        out.start(() -> {
            try {
                body.forEach(out.lines::add);
            }
            catch (Exception e) {
                // Closed.
            }
        });
        return out;
    }

    private void start(Runnable read) {
        Thread reader = new Thread(read, "stream-lines");
        reader.setDaemon(true);
        reader.start();
    }

    /** The next line starting with {@code prefix}, skipping others; fails after 30 s. */
    public String next(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' within 30 s");
    }

    /** Whether {@code program --version} runs: the tests that need it are skipped otherwise. */
    public static boolean onPath(String program) {
        try {
            return new ProcessBuilder(program, "--version").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }
        catch (Exception e) {
            return false;
        }
    }
}
