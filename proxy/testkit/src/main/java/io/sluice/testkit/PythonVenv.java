package io.sluice.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Python virtualenv with pinned packages from PyPI, for the programs we did not write that tests and benchmarks run:
 * the Python clients (confluent-kafka, websockets, httpx) and servers such as moto. Created on first use under the
 * checkout's {@code .sluice/python/} (gitignored; outside a checkout, {@code ~/.cache/sluice/python/}), one per content
 * of the requirements and extra files and per interpreter, so a changed pin makes a new one; several JVMs preparing the
 * same one at once take turns on a file lock.
 *
 * <p>It never throws for a machine without Python: {@link #prepare} says why in {@link Prepared#unavailable()}, and
 * each caller decides what that means (the tests fail under CI and are skipped elsewhere).
 */
public final class PythonVenv {

    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(8);

    private final Path dir;

    private PythonVenv(Path dir) {
        this.dir = dir;
    }

    /**
     * A venv or the reason there is none.
     *
     * @param venv the venv when ready, else null
     * @param unavailable why it could not be had, else null
     */
    public record Prepared(PythonVenv venv, String unavailable) {

        /** The venv, or an {@link IllegalStateException} saying why there is none. */
        public PythonVenv orThrow() {
            if (venv == null) {
                throw new IllegalStateException(unavailable);
            }
            return venv;
        }
    }

    /**
     * Creates (once) and returns the venv with these packages.
     *
     * @param name         what the venv is for, in its directory name and messages, e.g. {@code clients}, {@code moto}
     * @param requirements a pip requirements file's bytes; every package pinned
     * @param files        more files to put in the venv (name relative to it, e.g. {@code harness/x.py}), part of its identity
     */
    public static synchronized Prepared prepare(String name, byte[] requirements, Map<String, byte[]> files) {
        try {
            return install(name, requirements, files);
        }
        catch (IOException e) {
            return new Prepared(null, "the " + name + " virtualenv could not be prepared: " + e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Prepared(null, "interrupted while preparing the " + name + " virtualenv");
        }
    }

    public Path dir() {
        return dir;
    }

    /** The venv's interpreter. */
    public Path python() {
        return bin("python");
    }

    /** A program the venv's packages installed, e.g. {@code moto_server}. */
    public Path bin(String program) {
        return dir.resolve("bin").resolve(program);
    }

    private static Prepared install(String name, byte[] requirements, Map<String, byte[]> files) throws IOException, InterruptedException {
        String python = System.getenv().getOrDefault("SLUICE_PYTHON", "python3");
        Outcome version;
        try {
            version = exec(List.of(python, "--version"), Duration.ofSeconds(30));
        }
        catch (IOException e) {
            return new Prepared(null, "'" + python + "' cannot be run (" + e.getMessage()
                    + "): apt-get install -y python3 python3-venv; .ci/run does this as root; SLUICE_PYTHON names another");
        }
        if (version.exitCode != 0) {
            return new Prepared(null, python + " --version failed: " + version.output);
        }
        List<byte[]> identity = new ArrayList<>(List.of(requirements, version.output.getBytes(StandardCharsets.UTF_8)));
        files.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(f -> {
            identity.add(f.getKey().getBytes(StandardCharsets.UTF_8));
            identity.add(f.getValue());
        });
        Path dir = cacheRoot().resolve("venv-" + name + "-" + digest(identity));
        Files.createDirectories(dir.getParent());
        // One installer at a time per cache: surefire forks or parallel module builds may start together.
        try (FileChannel lockFile = FileChannel.open(dir.getParent().resolve("install.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lockFile.lock()) {
            Path ready = dir.resolve("ready");
            if (!Files.exists(ready)) {
                System.out.println("Python (" + name + "): creating a virtualenv in " + dir + " and installing " + requirementsLine(requirements)
                        + " from PyPI (first run only)");
                deleteTree(dir);
                Outcome created = exec(List.of(python, "-m", "venv", dir.toString()), Duration.ofMinutes(2));
                if (created.exitCode != 0) {
                    return new Prepared(null, python + " -m venv failed (apt-get install -y python3-venv): " + created.output);
                }
                Path requirementsFile = dir.resolve("requirements.txt");
                Files.write(requirementsFile, requirements);
                Outcome pip = exec(List.of(dir.resolve("bin/python").toString(), "-m", "pip", "install", "--disable-pip-version-check",
                        "--no-input", "-r", requirementsFile.toString()), INSTALL_TIMEOUT);
                if (pip.exitCode != 0) {
                    return new Prepared(null, "pip could not install " + requirementsLine(requirements) + ": " + pip.output);
                }
                for (Map.Entry<String, byte[]> file : files.entrySet()) {
                    Path target = dir.resolve(file.getKey());
                    Files.createDirectories(target.getParent());
                    Files.write(target, file.getValue());
                }
                Files.writeString(ready, version.output);
            }
        }
        return new Prepared(new PythonVenv(dir), null);
    }

    /** The checkout's root (where {@code ./sluice} and the root pom are) above the working directory, or null. */
    public static Path checkoutRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("sluice")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        return null;
    }

    /** The repository's {@code .sluice/python} (kept across {@code mvn clean}), or a cache in the user's home outside one. */
    private static Path cacheRoot() {
        Path root = checkoutRoot();
        return root != null ? root.resolve(".sluice").resolve("python")
                : Path.of(System.getProperty("user.home"), ".cache", "sluice", "python");
    }

    private static String requirementsLine(byte[] requirements) {
        return new String(requirements, StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).reduce((a, b) -> a + " " + b).orElse("");
    }

    private static String digest(List<byte[]> parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            parts.forEach(sha::update);
            return HexFormat.of().formatHex(sha.digest(), 0, 6);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private record Outcome(int exitCode, String output) {
    }

    /** Runs a setup command, its output echoed with a prefix and kept for the error message. */
    private static Outcome exec(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    System.out.println("[python setup] " + line);
                    synchronized (output) {
                        output.add(line);
                    }
                }
            }
            catch (IOException e) {
                // killed: what was read is kept
            }
        }, "python-setup");
        pump.setDaemon(true);
        pump.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            pump.join(5_000);
            return new Outcome(-1, joined(output) + "\n(timed out after " + timeout + ")");
        }
        pump.join(10_000);
        return new Outcome(process.exitValue(), joined(output).strip());
    }

    private static String joined(List<String> output) {
        synchronized (output) {
            return String.join("\n", output);
        }
    }
}
