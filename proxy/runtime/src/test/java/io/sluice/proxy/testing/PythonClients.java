package io.sluice.proxy.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

import static org.assertj.core.api.Assertions.fail;

/**
 * Runs the Python test clients (librdkafka through confluent-kafka, the {@code websockets} library) from JUnit: clients
 * the team did not write judge the proxy and the bridge. A module's scripts live in its {@code src/test/python}; they
 * run in a virtualenv with the packages pinned in {@code sluice-python/requirements.txt} (this test-jar's resources),
 * created on first use under the repository's {@code .sluice/python/} (gitignored; one per requirements and
 * interpreter), and import {@code sluice_harness} (beside the requirements) for the result protocol: the last line
 * starting with {@link #RESULT_PREFIX} holds the script's JSON result.
 *
 * <p>When Python 3, its venv module or the packages cannot be had, tests fail under CI (the {@code CI} variable set,
 * as {@code .ci/run} runs them, which installs Python) and are skipped elsewhere, saying why.
 */
public final class PythonClients {

    public static final String RESULT_PREFIX = "SLUICE-RESULT ";
    private static final String RESOURCES = "sluice-python/";
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static volatile Path venv;
    private static String unavailable;

    private PythonClients() {
    }

    /** What one script run printed and returned. */
    public record Run(String script, int exitCode, JsonNode result, List<String> output) {

        /** The result, after checking the script exited 0 and printed one. */
        public JsonNode ok() {
            if (exitCode != 0 || result == null) {
                fail(script + " exited " + exitCode + (result == null ? " without a result" : " with " + result)
                        + "; its output:\n" + String.join("\n", output));
            }
            return result;
        }
    }

    /**
     * Runs {@code python3 src/test/python/<script> args...} in the module under test (the working directory of its
     * tests) with {@code env} added, streaming its output into the test log, and kills it after {@code timeout}.
     * Secrets (tokens) go in {@code env}, not in {@code args}, so they stay out of process listings and logs.
     */
    public static Run run(String script, Duration timeout, Map<String, String> env, String... args) {
        Path python = requirePackages();
        Path file = Path.of("src", "test", "python", script).toAbsolutePath();
        if (!Files.isRegularFile(file)) {
            fail("no Python script " + file);
        }
        List<String> command = new ArrayList<>(List.of(python.toString(), "-u", file.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.environment().put("PYTHONPATH", venv.resolve("harness").toString());
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        List<String> output = new ArrayList<>();
        int exitCode;
        try {
            System.out.println("[" + script + "] $ python3 " + script + " " + String.join(" ", args));
            Process process = builder.start();
            Thread pump = pump(process.getInputStream(), script, output);
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                pump.join(5_000);
                fail(script + " did not finish within " + timeout + "; its output:\n" + String.join("\n", snapshot(output)));
            }
            pump.join(10_000);
            exitCode = process.exitValue();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        List<String> lines = snapshot(output);
        return new Run(script, exitCode, result(script, lines), lines);
    }

    private static JsonNode result(String script, List<String> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(RESULT_PREFIX)) {
                try {
                    return JSON.readTree(lines.get(i).substring(RESULT_PREFIX.length()));
                }
                catch (IOException e) {
                    fail(script + " printed a result that is not JSON: " + lines.get(i));
                }
            }
        }
        return null;
    }

    private static List<String> snapshot(List<String> output) {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    /** Copies the process's output into the test log line by line as it comes, and keeps it. */
    private static Thread pump(InputStream in, String script, List<String> output) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    System.out.println("[" + script + "] " + line);
                    synchronized (output) {
                        output.add(line);
                    }
                }
            }
            catch (IOException e) {
                // The process was killed: what was read is kept.
            }
        }, "python-" + script);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** The virtualenv's interpreter, creating the virtualenv and installing the packages on first use. */
    private static synchronized Path requirePackages() {
        if (venv == null && unavailable == null) {
            try {
                unavailable = install();
            }
            catch (IOException e) {
                unavailable = "the virtualenv could not be prepared: " + e;
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (unavailable != null) {
            if (System.getenv("CI") != null) {
                fail("Python client tests cannot run: " + unavailable);
            }
            System.out.println("Skipping the Python client tests: " + unavailable);
            Assumptions.abort(unavailable);
        }
        return venv.resolve("bin").resolve("python");
    }

    /** @return why the packages cannot be had, or null once {@link #venv} is ready */
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
            Path ready = dir.resolve("ready");
            if (!Files.exists(ready)) {
                System.out.println("Python client tests: creating a virtualenv in " + dir + " and installing " + requirementsLine(requirements)
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
                Files.writeString(ready, version.output);
            }
        }
        venv = dir;
        return null;
    }

    private static String requirementsLine(byte[] requirements) {
        return new String(requirements, StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).reduce((a, b) -> a + " " + b).orElse("");
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = PythonClients.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCES + name + " is missing from the proxy's test-jar");
            }
            return in.readAllBytes();
        }
    }

    /** The repository's {@code .sluice/python} (kept across {@code mvn clean}), or the module's target outside one. */
    private static Path cacheRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("sluice")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir.resolve(".sluice").resolve("python");
            }
        }
        return Path.of("target", "python").toAbsolutePath();
    }

    private static String digest(byte[]... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (byte[] part : parts) {
                sha.update(part);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 6);
        }
        catch (java.security.NoSuchAlgorithmException e) {
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
