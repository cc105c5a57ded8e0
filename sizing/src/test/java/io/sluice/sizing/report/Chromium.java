package io.sluice.sizing.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * Debian's headless Chromium for the report tests. CI installs it before the build (.ci/run); a test run elsewhere
 * installs it when it runs as root with apt-get, and otherwise skips the browser test with the reason printed.
 */
final class Chromium {

    private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome");
    // Headless, without a sandbox (containers, root) or GPU, and without any call home that would stall a test.
    static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync");

    private Chromium() {
    }

    /** The browser's path; installs it if allowed, else aborts the calling test with the reason. */
    static Path requireOrInstall() {
        Optional<Path> found = find();
        if (found.isPresent()) {
            return found.get();
        }
        String why = install();
        return find().orElseGet(() -> {
            String reason = "chromium is not installed and could not be installed (" + why + "); "
                    + "install it with `apt-get install -y chromium` to run the report's browser test";
            System.err.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
            return null;
        });
    }

    static Optional<Path> find() {
        String override = System.getenv("CHROMIUM");
        if (override != null && Files.isExecutable(Path.of(override))) {
            return Optional.of(Path.of(override));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            for (String name : NAMES) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static String install() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "not running as root";
        }
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            return "no apt-get";
        }
        String first = run(List.of("apt-get", "install", "-y", "--no-install-recommends", "chromium"));
        if (first.isEmpty()) {
            return "";
        }
        // A fresh machine may have no package lists yet.
        run(List.of("apt-get", "update"));
        return run(List.of("apt-get", "install", "-y", "--no-install-recommends", "chromium"));
    }

    /** Runs a command; returns an empty string on success, else what went wrong. */
    private static String run(List<String> command) {
        try {
            ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
            Process process = builder.start();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                return String.join(" ", command) + " timed out";
            }
            return process.exitValue() == 0 ? "" : String.join(" ", command) + " exited with " + process.exitValue();
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
