package io.sluice.app.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

import io.sluice.testkit.Executables;

import static org.assertj.core.api.Assertions.fail;

/**
 * The real Helm CLI for the chart's tests ({@code helm lint}, {@code helm template}). Which binary: {@code SLUICE_HELM}
 * if set; else the pinned version that {@code src/test/helm/install-helm.sh} builds from its Go module into the
 * checkout's {@code .sluice/helm/} (once; the script returns at once when it is there, and waits when {@code .ci/run}
 * is building it); else a {@code helm} on the PATH. Without any, the tests fail under CI (the {@code CI} variable set,
 * as {@code .ci/run} runs them; Go is on every machine) and are skipped elsewhere, saying why.
 */
final class HelmCli {

    static final Path INSTALL_SCRIPT = Path.of("src", "test", "helm", "install-helm.sh");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(1);

    private static String binary;
    private static String unavailable;

    private final String helm;

    private HelmCli(String helm) {
        this.helm = helm;
    }

    /** What one helm run printed. */
    record Result(List<String> command, int exitCode, String stdout, String stderr) {

        Result ok() {
            if (exitCode != 0) {
                fail(String.join(" ", command) + " exited " + exitCode + ":\n" + stderr + stdout);
            }
            return this;
        }
    }

    /** The CLI, building it on first use; fails under CI and skips elsewhere when there is none. */
    static synchronized HelmCli require() {
        if (binary == null && unavailable == null) {
            locate();
        }
        if (unavailable != null) {
            if (System.getenv("CI") != null) {
                fail("the Helm chart's tests cannot run: " + unavailable);
            }
            System.out.println("Skipping the Helm chart's tests: " + unavailable);
            Assumptions.abort(unavailable);
        }
        return new HelmCli(binary);
    }

    Result run(String... args) {
        List<String> command = new ArrayList<>(List.of(helm));
        command.addAll(List.of(args));
        return exec(command, RUN_TIMEOUT);
    }

    private static void locate() {
        String configured = System.getenv("SLUICE_HELM");
        if (configured != null && !configured.isBlank()) {
            if (Files.isExecutable(Path.of(configured))) {
                binary = configured;
            } else {
                unavailable = "SLUICE_HELM=" + configured + " is not an executable file";
            }
            return;
        }
        Path script = INSTALL_SCRIPT.toAbsolutePath();
        String built = null;
        if (Executables.onPath("go")) {
            Result install = exec(List.of("bash", script.toString()), BUILD_TIMEOUT);
            System.out.print(install.stderr());
            String path = install.stdout().strip();
            if (install.exitCode() == 0 && Files.isExecutable(Path.of(path))) {
                built = path;
            } else {
                System.out.println("install-helm.sh failed (" + install.exitCode() + "):\n" + install.stderr() + install.stdout());
            }
        }
        if (built != null) {
            binary = built;
        } else if (Executables.onPath("helm")) {
            binary = "helm";
            System.out.println("Helm chart tests: the pinned helm could not be built; using the helm on the PATH");
        } else {
            unavailable = Executables.onPath("go")
                    ? "building helm with " + script + " failed (its output is above)"
                    : "neither 'go' (to build the pinned helm with " + script + ") nor 'helm' is on the PATH";
        }
    }

    private static Result exec(List<String> command, Duration timeout) {
        try {
            Process process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(command, -1, out.getNow(""), err.getNow("") + "\n(timed out after " + timeout + ")");
            }
            return new Result(command, process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
