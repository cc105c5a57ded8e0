package io.sluice.bench.bridge;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.JavaCommand;
import io.sluice.testkit.LocalKafka;

/**
 * A bridge node in a child JVM ({@link BenchBridgeNode}) on this JVM's class path, so that its CPU and memory can be
 * read from /proc apart from the load generator's, and so its heap and GC are its own.
 */
final class LocalBridge implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final String PATH = "/ws";
    // The listener check's detail in /readyz (BridgeServer).
    private static final Pattern LISTENING = Pattern.compile("listening on port (\\d+)");
    // BridgeServer's start-up line for the MQTT listener (the readiness check names the main port only).
    private static final Pattern MQTT_LISTENING = Pattern.compile("MQTT listener on mqtt://[^:\\s]+:(\\d+)");

    private final Process process;
    private final Path dir;
    private final int managementPort;
    private final String nodeName;
    private int port;
    private int mqttPort;
    private long lastCpuNanos;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private LocalBridge(Process process, Path dir, int managementPort, String nodeName) {
        this.process = process;
        this.dir = dir;
        this.managementPort = managementPort;
        this.nodeName = nodeName;
    }

    /** Starts a bridge reading {@code topic} (every key an endpoint) and waits until {@code /readyz} says ready. */
    static LocalBridge start(String bootstrap, String topic, ValueShape shape, String token, int workerThreads, String transport, Map<String, String> kafkaProperties,
                             List<String> jvmOptions) throws IOException, InterruptedException {
        LocalBridge bridge = launch(bootstrap, topic, shape, token, workerThreads, transport, kafkaProperties, jvmOptions, "bench-bridge");
        bridge.awaitReady();
        return bridge;
    }

    /**
     * Starts {@code count} nodes on the same Kafka and topic, named {@code bench-bridge-1} ... (the {@code node} of
     * their {@code connected} replies), each its own child JVM; the JVMs start at once and are waited for together.
     */
    static List<LocalBridge> startNodes(int count, String bootstrap, String topic, ValueShape shape, String token, int workerThreads, String transport,
                                        Map<String, String> kafkaProperties, List<String> jvmOptions) throws IOException, InterruptedException {
        List<LocalBridge> nodes = new ArrayList<>();
        try {
            for (int i = 1; i <= count; i++) {
                nodes.add(launch(bootstrap, topic, shape, token, workerThreads, transport, kafkaProperties, jvmOptions, "bench-bridge-" + i));
            }
            for (LocalBridge node : nodes) {
                node.awaitReady();
            }
            return nodes;
        } catch (IOException | InterruptedException | RuntimeException e) {
            nodes.forEach(LocalBridge::close);
            throw e;
        }
    }

    private static LocalBridge launch(String bootstrap, String topic, ValueShape shape, String token, int workerThreads, String transport,
                                      Map<String, String> kafkaProperties, List<String> jvmOptions, String nodeName) throws IOException {
        int managementPort = FreePorts.block(1);
        Path dir = Files.createTempDirectory("sluice-bench-bridge-");
        // Avro values are decoded with the bench's schema as a local file (bare records, no registry); JSON values are
        // left to the bridge's default, which sends a JSON object as it is and reads it for field lists and deltas.
        String formats = "[]";
        if (shape == ValueShape.AVRO) {
            Path schema = Files.writeString(dir.resolve("update.avsc"), StructuredValues.AVRO_SCHEMA);
            // JSON strings are YAML double-quoted strings: the quoting is right whatever the path holds.
            ObjectMapper json = new ObjectMapper();
            formats = "[{topics: %s, value: {type: avro, schemaFile: %s}}]".formatted(json.writeValueAsString(Pattern.quote(topic)),
                    json.writeValueAsString(schema.toString()));
        }
        // Port 0, read back from /readyz: a port picked here could be taken as an ephemeral port by the time the child
        // binds it, which tens of thousands of connections make likely. The listener takes the whole loopback network so subscribers can come from 127.0.0.2, 127.0.0.3, ...; the
        // connect timeout is long because tens of thousands of handshakes queue behind each other on two cores.
        Path config = Files.writeString(dir.resolve("bridge.yaml"), """
                server:
                  listen: "0.0.0.0:0"
                  path: %s
                  workerThreads: %d
                  transport: %s
                  nodeName: %s
                kafka:
                  bootstrapServers: "%s"
                  properties: %s
                topics: %s
                formats: %s
                auth:
                  connectTimeout: 120s
                connections:
                  # Every subscriber comes from a few loopback addresses, tens of thousands each, at --connect-rate:
                  # the per-address limits that protect a public node would refuse the bench, so it lifts them here.
                  handshakeTimeout: 120s
                  maxConnections: 1000000
                  maxConnectionsPerIp: 1000000
                  maxHandshakes: 1000000
                  maxHandshakesPerIp: 1000000
                  connectionsPerSecondPerIp: 1000000
                  connectionBurstPerIp: 1000000
                management:
                  bindAddress: 127.0.0.1
                  port: %d
                # For --transport mqtt; an idle listener costs the other transports nothing.
                mqtt:
                  enabled: true
                  listen: "0.0.0.0:0"
                """.formatted(PATH, workerThreads, transport, nodeName, bootstrap, new ObjectMapper().writeValueAsString(kafkaProperties), topic, formats, managementPort));
        Path log = dir.resolve("bridge.log");
        ProcessBuilder builder = new ProcessBuilder(JavaCommand.of(jvmOptions, BenchBridgeNode.class.getName(), List.of(config.toString(), topic)))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put(BenchBridgeNode.TOKEN_ENV, token);
        LocalBridge bridge = new LocalBridge(builder.start(), dir, managementPort, nodeName);
        Runtime.getRuntime().addShutdownHook(new Thread(bridge.process::destroyForcibly, "sluice-bench-bridge-reaper"));
        return bridge;
    }

    private void awaitReady() throws IOException, InterruptedException {
        Path log = dir.resolve("bridge.log");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String tail = LocalKafka.tail(log);
                close();
                throw new IOException("bench bridge exited with " + process.exitValue() + ":\n" + tail);
            }
            var ready = get("/readyz").filter(r -> r.statusCode() == 200);
            if (ready.isPresent()) {
                Matcher listening = LISTENING.matcher(ready.get().body());
                if (!listening.find()) {
                    close();
                    throw new IOException("bench bridge ready but its port is not in /readyz: " + ready.get().body());
                }
                port = Integer.parseInt(listening.group(1));
                Matcher mqtt = MQTT_LISTENING.matcher(Files.readString(log));
                if (!mqtt.find()) {
                    close();
                    throw new IOException("bench bridge ready but its MQTT listener is not in its log: " + LocalKafka.tail(log));
                }
                mqttPort = Integer.parseInt(mqtt.group(1));
                return;
            }
            Thread.sleep(200);
        }
        String tail = LocalKafka.tail(log);
        close();
        throw new IOException("bench bridge not ready within " + START_TIMEOUT.toSeconds() + " s:\n" + tail);
    }

    long pid() {
        return process.pid();
    }

    /** The node's name, as its {@code connected} replies give it. */
    String nodeName() {
        return nodeName;
    }

    int port() {
        return port;
    }

    /** Where its MQTT listener is, for {@code --transport mqtt}. */
    String mqttUrl() {
        return "mqtt://127.0.0.1:" + mqttPort;
    }

    /** CPU (user + system) the node's process has used, from /proc; once it is gone, what it had used at the last reading. */
    long cpuNanos() {
        if (process.isAlive()) {
            try {
                lastCpuNanos = CpuSampler.processCpuNanos(pid());
            } catch (java.io.UncheckedIOException gone) {
                // it died between the check and the read
            }
        }
        return lastCpuNanos;
    }

    /** The crash: SIGKILL, no goodbye to any client; returns once the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** A graceful stop: SIGTERM, on which the node closes its connections with 1001; returns once the process is gone. */
    void terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    String url() {
        return "ws://127.0.0.1:" + port + PATH;
    }

    /**
     * Heap in use right after a full collection, asked for with {@code jcmd GC.run} and read from the bridge's own
     * {@code jvm_memory_used_bytes{area="heap"}}; -1 when either step fails.
     */
    long heapUsedAfterGc() throws InterruptedException {
        try {
            Process jcmd = new ProcessBuilder(jcmdBinary(), Long.toString(pid()), "GC.run").redirectErrorStream(true).start();
            jcmd.getInputStream().readAllBytes();
            if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                return -1;
            }
        } catch (IOException e) {
            return -1;
        }
        return get("/metrics").map(r -> sum(r.body(), "jvm_memory_used_bytes{", "area=\"heap\"")).orElse(-1L);
    }

    long rssBytes() {
        return CpuSampler.rssBytes(pid());
    }

    private static long sum(String prometheus, String prefix, String label) {
        double total = 0;
        for (String line : prometheus.split("\n")) {
            if (line.startsWith(prefix) && line.contains(label)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) total;
    }

    private Optional<HttpResponse<String>> get(String path) throws InterruptedException {
        try {
            return Optional.of(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException notListening) {
            return Optional.empty();
        }
    }

    private static String jcmdBinary() {
        Path beside = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        return Files.isExecutable(beside) ? beside.toString() : "jcmd";
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
