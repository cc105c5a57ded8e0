package io.sluice.testkit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A real single-node KRaft Kafka (broker and controller in one JVM) run as a child process from the Kafka jars on
 * our own class path. A child rather than in-VM so that benchmarks can measure the broker's CPU apart from the
 * proxy's, and so that the broker's threads and heap never disturb the process being measured.
 */
public final class LocalKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafka.class);
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration GRACEFUL_STOP = Duration.ofSeconds(15);
    private static final int LOG_TAIL_LINES = 40;
    private static final int FIRST_ERROR_LINES = 5;

    /**
     * @param workDir               where config, data and broker.log go; {@code null} for a temporary directory
     *                              that {@link #close()} deletes
     * @param port                  client port on 127.0.0.1; 0 picks a free one
     * @param heap                  JVM options for the broker's heap, e.g. "-Xmx512m"
     * @param extraBrokerProperties added to, or overriding, the generated server.properties
     * @param startTimeout          how long to wait for the broker to answer
     */
    public record Options(Path workDir, int port, String heap, Map<String, String> extraBrokerProperties,
                          Duration startTimeout) {
        public Options {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            heap = heap == null || heap.isBlank() ? "-Xmx512m" : heap;
            extraBrokerProperties = extraBrokerProperties == null ? Map.of() : Map.copyOf(extraBrokerProperties);
            startTimeout = startTimeout == null ? Duration.ofSeconds(60) : startTimeout;
        }

        /** A temporary directory, a free port, 512 MB of heap and a minute to start. */
        public static Options defaults() {
            return new Options(null, 0, null, null, null);
        }
    }

    private final Process process;
    private final Path workDir;
    private final boolean deleteWorkDir;
    private final Path logFile;
    private final int port;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LocalKafka(Process process, Path workDir, boolean deleteWorkDir, Path logFile, int port) {
        this.process = process;
        this.workDir = workDir;
        this.deleteWorkDir = deleteWorkDir;
        this.logFile = logFile;
        this.port = port;
        this.shutdownHook = new Thread(this::stop, "local-kafka-shutdown-" + process.pid());
    }

    /** Formats storage, starts the broker and returns once it answers a describeCluster. */
    public static LocalKafka start(Options options) throws Exception {
        boolean temporary = options.workDir() == null;
        Path workDir = temporary ? Files.createTempDirectory("sluice-kafka-") : options.workDir().toAbsolutePath();
        try {
            int port = options.port() == 0 ? freePort() : options.port();
            int controllerPort = freePort(port);
            BrokerFiles files = BrokerFiles.write(workDir, port, controllerPort, options.extraBrokerProperties());
            format(files);
            return launch(options, workDir, temporary, files, port);
        } catch (Exception | Error e) {
            if (temporary) {
                deleteRecursively(workDir);
            }
            throw e;
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public Path logFile() {
        return logFile;
    }

    /** Stops the broker gracefully (forcibly after 15 s) and deletes a temporary work directory. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook is running or about to; it does the same work.
        }
        stop();
    }

    private void stop() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stopProcess(process);
        if (deleteWorkDir) {
            deleteRecursively(workDir);
        }
        LOG.info("Kafka broker pid {} stopped", process.pid());
    }

    private static void format(BrokerFiles files) throws IOException, InterruptedException, TimeoutException {
        if (Files.exists(files.dataDir().resolve("meta.properties"))) {
            // A reused work directory: formatting again would need its cluster id, and there is nothing to do.
            return;
        }
        List<String> command = JavaCommand.of(
                List.of("-Xmx256m", "-D" + BrokerFiles.LOG_LEVEL_PROPERTY + "=WARN",
                        "-Dlogback.configurationFile=" + files.logbackConfig(),
                        "-Dlog4j2.configurationFile=" + files.log4j2Config()),
                "kafka.tools.StorageTool",
                List.of("format", "-t", Uuid.randomUuid().toString(), "-c", files.serverProperties().toString()));
        Process tool = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(files.formatLog().toFile())
                .start();
        if (!tool.waitFor(FORMAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            stopProcess(tool);
            throw new TimeoutException("Kafka storage format did not finish in " + FORMAT_TIMEOUT + ":\n"
                    + tail(files.formatLog()));
        }
        if (tool.exitValue() != 0) {
            throw new IOException("Kafka storage format failed with exit code " + tool.exitValue() + ":\n"
                    + tail(files.formatLog()));
        }
    }

    private static LocalKafka launch(Options options, Path workDir, boolean temporary, BrokerFiles files, int port)
            throws Exception {
        List<String> jvmOptions = new ArrayList<>(List.of(options.heap().trim().split("\\s+")));
        jvmOptions.add("-XX:+ExitOnOutOfMemoryError");
        jvmOptions.add("-Djava.awt.headless=true");
        jvmOptions.add("-Dlogback.configurationFile=" + files.logbackConfig());
        jvmOptions.add("-Dlog4j2.configurationFile=" + files.log4j2Config());
        List<String> command = JavaCommand.of(jvmOptions, "kafka.Kafka", List.of(files.serverProperties().toString()));

        long started = System.nanoTime();
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                // Truncated, not appended: in a reused work directory the ERROR lines quoted on a failed start
                // must be this run's.
                .redirectOutput(ProcessBuilder.Redirect.to(files.brokerLog().toFile()))
                .start();
        LocalKafka kafka = new LocalKafka(process, workDir, temporary, files.brokerLog(), port);
        try {
            Runtime.getRuntime().addShutdownHook(kafka.shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            stopProcess(process);
            throw shuttingDown;
        }
        try {
            kafka.awaitReady(options.startTimeout());
        } catch (Exception | Error e) {
            // The caller's cleanup removes a temporary work directory; the log tail is already in the exception.
            kafka.closeKeepingWorkDir();
            throw e;
        }
        LOG.info("Kafka broker pid {} ready at {} after {} ms; log {}", process.pid(), kafka.bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), files.brokerLog());
        return kafka;
    }

    private void closeKeepingWorkDir() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            return;
        }
        closed.set(true);
        stopProcess(process);
    }

    private void awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        // Wait for the port first: an Admin pointed at a closed port logs a warning for every retry.
        while (!accepting()) {
            checkAlive();
            checkDeadline(deadline, timeout);
            Thread.sleep(100);
        }
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        Admin admin = Admin.create(config);
        try {
            while (true) {
                checkAlive();
                checkDeadline(deadline, timeout);
                long waitMillis = Math.max(1, Math.min(5_000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                try {
                    Collection<Node> nodes = admin.describeCluster().nodes().get(waitMillis, TimeUnit.MILLISECONDS);
                    if (!nodes.isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    LOG.debug("Broker not ready yet: {}", e.toString());
                }
                Thread.sleep(100);
            }
        } finally {
            // Bounded: the default close waits for pending calls, and a call to something on our port that is not
            // a broker (another process that won the race for it) can stay pending indefinitely.
            admin.close(Duration.ofSeconds(2));
        }
    }

    private boolean accepting() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void checkAlive() throws IOException {
        if (!process.isAlive()) {
            throw new IOException("Kafka broker exited with code " + process.exitValue() + " before it was ready; "
                    + "from " + logFile + ":\n" + tail(logFile));
        }
    }

    private void checkDeadline(long deadline, Duration timeout) throws TimeoutException {
        if (System.nanoTime() - deadline > 0) {
            throw new TimeoutException("Kafka broker not ready within " + timeout + "; from " + logFile + ":\n" + tail(logFile));
        }
    }

    private static void stopProcess(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(GRACEFUL_STOP.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("Kafka pid {} did not stop within {}; killing it", process.pid(), GRACEFUL_STOP);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort(int... avoid) throws IOException {
        while (true) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int candidate = socket.getLocalPort();
                if (Arrays.stream(avoid).noneMatch(p -> p == candidate)) {
                    return candidate;
                }
            }
        }
    }

    /**
     * The last lines of a log, preceded by its first ERROR lines: a broker that fails at startup logs the cause
     * once and then a shutdown long enough to push it out of any short tail.
     */
    public static String tail(Path file) {
        List<String> lines;
        try {
            // Decoded leniently: a broker killed mid-write can leave a partial UTF-8 sequence.
            lines = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            return "(" + file + " unreadable: " + e + ")";
        }
        int tailStart = Math.max(0, lines.size() - LOG_TAIL_LINES);
        List<String> errors = lines.subList(0, tailStart).stream()
                .filter(line -> line.contains(" ERROR "))
                .limit(FIRST_ERROR_LINES)
                .toList();
        StringBuilder out = new StringBuilder();
        if (!errors.isEmpty()) {
            out.append("first errors:\n");
            errors.forEach(line -> out.append(line).append('\n'));
            out.append("last lines:\n");
        }
        out.append(String.join("\n", lines.subList(tailStart, lines.size())));
        return out.toString();
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.toString());
        }
    }
}
