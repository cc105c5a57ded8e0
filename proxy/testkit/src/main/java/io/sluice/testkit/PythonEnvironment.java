package io.sluice.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);

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
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (unavailable != null) {
            throw new UnavailableException(unavailable);
        }
        return ready;
    }

    /** The checkout's root (where {@code ./sluice} and the root pom are) above the working directory, or null. */
    public static Path checkoutRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("sluice")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        return null;
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
    private static String install() throws IOException, InterruptedException {
        String python = System.getenv().getOrDefault("SLUICE_PYTHON", "python3");
        if (python.contains(File.separator) ? !Files.isExecutable(Path.of(python)) : !Executables.onPath(python)) {
            return "'" + python + "' is not " + (python.contains(File.separator) ? "an executable file" : "on the PATH")
                    + " (apt-get install -y python3 python3-venv; .ci/run does this as root; SLUICE_PYTHON names another)";
        }
        Outcome version = exec(List.of(python, "--version"), Duration.ofSeconds(30));
        if (version.exitCode != 0) {
            return python + " --version failed: " + version.output;
        }
        byte[] requirements = resource("requirements.txt");
        byte[] harness = resource("sluice_harness.py");
        Path dir = cacheRoot().resolve("venv-" + digest(requirements, harness, version.output.getBytes(StandardCharsets.UTF_8)));
        Files.createDirectories(dir.getParent());
        // One installer at a time per repository: surefire forks or parallel module builds may start together.
        try (FileChannel lockFile = FileChannel.open(dir.getParent().resolve("install.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lockFile.lock()) {
            Path readyFile = dir.resolve("ready");
            if (!Files.exists(readyFile)) {
                System.out.println("Python clients: creating a virtualenv in " + dir + " and installing " + requirementsLine(requirements)
                        + " from PyPI (first run only)");
                deleteTree(dir);
                Outcome created = exec(List.of(python, "-m", "venv", dir.toString()), Duration.ofMinutes(2));
                if (created.exitCode != 0) {
                    return python + " -m venv failed (apt-get install -y python3-venv): " + created.output;
                }
                Path requirementsFile = dir.resolve("requirements.txt");
                Files.write(requirementsFile, requirements);
                Outcome pip = exec(List.of(dir.resolve("bin/python").toString(), "-m", "pip", "install", "--disable-pip-version-check",
                        "--no-input", "-r", requirementsFile.toString()), INSTALL_TIMEOUT);
                if (pip.exitCode != 0) {
                    return "pip could not install " + requirementsLine(requirements) + ": " + pip.output;
                }
                Files.createDirectories(dir.resolve("harness"));
                Files.write(dir.resolve("harness/sluice_harness.py"), harness);
                Files.writeString(readyFile, version.output);
            }
        }
        ready = new Ready(dir.resolve("bin").resolve("python"), dir.resolve("harness"));
        return null;
    }

    private static String requirementsLine(byte[] requirements) {
        return new String(requirements, StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).reduce((a, b) -> a + " " + b).orElse("");
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = PythonEnvironment.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCES + name + " is missing from the test kit's jar");
            }
            return in.readAllBytes();
        }
    }

    /** The repository's {@code .sluice/python} (kept across {@code mvn clean}), or the working directory's {@code target/python} outside one. */
    private static Path cacheRoot() {
        Path root = checkoutRoot();
        return root != null ? root.resolve(".sluice").resolve("python") : Path.of("target", "python").toAbsolutePath();
    }

    private static String digest(byte[]... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (byte[] part : parts) {
                sha.update(part);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 6);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private record Outcome(int exitCode, String output) {
    }

    private static Outcome exec(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        Thread pump = pump(process.getInputStream(), "python setup", output);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            pump.join(5_000);
            return new Outcome(-1, String.join("\n", snapshot(output)) + "\n(timed out after " + timeout + ")");
        }
        pump.join(10_000);
        return new Outcome(process.exitValue(), String.join("\n", snapshot(output)).strip());
    }
}
