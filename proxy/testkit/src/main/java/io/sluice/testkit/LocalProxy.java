package io.sluice.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy as a child process ({@code sluice proxy --config FILE}) from this JVM's class path, so that a
 * benchmark can measure the proxy's own CPU and memory, apart from the load generator's. The caller names the launcher
 * class (the app's {@code Main}, whose {@code main} takes {@code proxy --config FILE}): the test kit is below the app
 * and must not know it, and the launcher must be on this JVM's class path.
 */
public final class LocalProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalProxy.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Path workDir;

    private LocalProxy(Process process, Path workDir) {
        this.process = process;
        this.workDir = workDir;
    }

    /**
     * Starts the proxy with {@code configYaml} and waits until its {@code /readyz} answers 200.
     *
     * @param mainClass      the launcher's class, whose {@code main} runs {@code proxy --config FILE}
     * @param managementPort the management port the config sets (used to wait for readiness)
     */
    public static LocalProxy start(String mainClass, String configYaml, int managementPort, List<String> jvmOptions)
            throws IOException, InterruptedException {
        return start(mainClass, configYaml, managementPort, jvmOptions, Map.of());
    }

    /**
     * As {@link #start(String, String, int, List)}, with variables added to the child's environment: the proxy substitutes
     * {@code ${VAR}} in its configuration itself, so a template can be passed as it is.
     */
    public static LocalProxy start(String mainClass, String configYaml, int managementPort, List<String> jvmOptions, Map<String, String> env)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("sluice-proxy-");
        Path config = Files.writeString(dir.resolve("proxy.yaml"), configYaml);
        Path log = dir.resolve("proxy.log");
        ProcessBuilder builder = new ProcessBuilder(JavaCommand.of(jvmOptions, mainClass, List.of("proxy", "--config", config.toString())))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        LocalProxy proxy = new LocalProxy(process, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "sluice-local-proxy-reaper"));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                // The log first: closing deletes the directory it is in, and with it the reason.
                String why = tail(log);
                proxy.close();
                throw new IOException("proxy exited with " + process.exitValue() + ": " + why);
            }
            try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/readyz"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    LOG.info("proxy pid {} ready; log {}", process.pid(), log);
                    return proxy;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        String why = tail(log);
        proxy.close();
        throw new IOException("proxy not ready within " + START_TIMEOUT.toSeconds() + " s: " + why);
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(workDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("could not delete {}: {}", workDir, e.toString());
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
