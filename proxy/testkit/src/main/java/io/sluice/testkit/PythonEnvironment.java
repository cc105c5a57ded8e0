package io.sluice.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Python the clients we did not write run in (librdkafka through confluent-kafka, websockets, httpx): a
 * virtualenv with the packages pinned in {@code sluice-python/requirements.txt} (this jar's resources) and
 * {@code sluice_harness} (the result protocol, beside them), created on first use under the repository's
 * {@code .sluice/python/} (gitignored; one per requirements and interpreter). The tests' {@code PythonClients} (the
 * test-jar) and the benchmarks that drive librdkafka ({@code sluice bench quotas}) both start from here.
 */
public final class PythonEnvironment {

    /** What a script prints before its JSON result, on the last such line. */
    public static final String RESULT_PREFIX = "SLUICE-RESULT ";
    private static final String RESOURCES = "sluice-python/";

    private static Ready ready;
    private static String unavailable;

    private PythonEnvironment() {
    }

    /** Why the virtualenv cannot be had: no interpreter, no venv module, or pip could not install the packages. */
    public static final class UnavailableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnavailableException(String why) {
            super(why);
        }
    }

    /**
     * The prepared virtualenv.
     *
     * @param python  its interpreter
     * @param harness the directory that holds {@code sluice_harness.py}, for {@code PYTHONPATH}
     */
    public record Ready(Path python, Path harness) {

        /** {@code python -u script args...} with {@code sluice_harness} importable and stderr merged into stdout. */
        public ProcessBuilder command(Path script, List<String> args) {
            List<String> command = new ArrayList<>(List.of(python.toString(), "-u", script.toAbsolutePath().toString()));
            command.addAll(args);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().put("PYTHONPATH", harness.toString());
            builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            return builder;
        }
    }

    /** The virtualenv, created and filled on first use (one installer at a time per repository). */
    public static synchronized Ready prepare() throws UnavailableException {
        if (ready == null && unavailable == null) {
            try {
                unavailable = install();
            } catch (IOException e) {
                unavailable = "the virtualenv could not be prepared: " + e;
            }
        }
        if (unavailable != null) {
            throw new UnavailableException(unavailable);
        }
        return ready;
    }

    /** The checkout's root (where {@code ./sluice} and the root pom are) above the working directory, or null. */
    public static Path checkoutRoot() {
        return PythonVenv.checkoutRoot();
    }

    /**
     * Copies a process's output line by line as it comes to stdout, each line prefixed {@code [name] }, and into
     * {@code into} (synchronized on it), on a daemon thread; returns the thread.
     */
    public static Thread pump(InputStream in, String name, List<String> into) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    System.out.println("[" + name + "] " + line);
                    synchronized (into) {
                        into.add(line);
                    }
                }
            } catch (IOException e) {
                // The process was killed: what was read is kept.
            }
        }, "python-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** A copy of lines a {@link #pump} is still adding to. */
    public static List<String> snapshot(List<String> output) {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    /** @return why the packages cannot be had, or null once {@link #ready} is set */
    private static String install() throws IOException {
        // The venv itself (interpreter check, lock, pip) is PythonVenv's, shared with the servers from PyPI (moto).
        PythonVenv.Prepared prepared = PythonVenv.prepare("clients", resource("requirements.txt"),
                Map.of("harness/sluice_harness.py", resource("sluice_harness.py"),
                        "harness/sluice_records.py", resource("sluice_records.py")));
        if (prepared.venv() == null) {
            return prepared.unavailable();
        }
        ready = new Ready(prepared.venv().python(), prepared.venv().dir().resolve("harness"));
        return null;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = PythonEnvironment.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCES + name + " is missing from the test kit's jar");
            }
            return in.readAllBytes();
        }
    }
}
