package io.sluice.app;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.bridge.client.HeadlessBrowser;
import io.sluice.testkit.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The distribution as a user gets it: the tarball {@code mvn package} built, unpacked in a temporary directory, run
 * with a PATH that has Java's launcher script tools but no Maven, from a working directory outside the checkout. The
 * proxy serves a real (in-VM KRaft) broker with the shipped passthrough example; the bridge, with the shipped bridge
 * example, serves a record produced through that proxy to a JDK WebSocket client. Both stop on SIGTERM.
 */
@ExtendWith(KafkaClusterExtension.class)
class DistributionIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration OUTAGE = Duration.ofSeconds(20);
    private static final String JVM = "-Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    static Path work;

    private static Path home;
    /** The same distribution without lib-extra/, as the container image installs it. */
    private static Path slim;
    private static Path toolsOnly;

    private final List<Process> started = new ArrayList<>();
    /** Where each server started by {@link #start} logs: a failed start is reported with the end of its log. */
    private final Map<Process, Path> logs = new HashMap<>();

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("sluice.distribution"));
        assertThat(tarball).as("built by mvn package").isRegularFile();
        Path into = Files.createDirectories(work.resolve("install"));
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", into.toString()).inheritIO().start();
        assertThat(tar.waitFor()).isZero();
        try (Stream<Path> top = Files.list(into)) {
            home = top.collect(Collectors.toList()).get(0);
        }
        assertThat(home.getFileName().toString()).startsWith("sluice-");
        Path slimInto = Files.createDirectories(work.resolve("slim"));
        assertThat(new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", slimInto.toString()).inheritIO().start().waitFor()).isZero();
        slim = slimInto.resolve(home.getFileName());
        try (Stream<Path> extra = Files.walk(slim.resolve("lib-extra"))) {
            extra.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        assertThat(slim.resolve("lib-extra")).doesNotExist();
        // Only the tools bin/sluice uses (a POSIX shell and a few utilities): no Maven, no source tree.
        toolsOnly = Files.createDirectories(work.resolve("path"));
        for (String tool : List.of("sh", "dirname", "sed", "head", "cut", "ls")) {
            Path found = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, tool)).filter(Files::isExecutable).findFirst()
                    .orElseThrow(() -> new IllegalStateException(tool + " not found"));
            Files.createSymbolicLink(toolsOnly.resolve(tool), found);
        }
    }

    @AfterEach
    void stopLeftovers() {
        // Descendants first: should bin/sluice ever stop exec-ing the JVM, the JVM would outlive its shell.
        started.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void theTarballHoldsTheLauncherEveryRuntimeJarOnceTheExamplesAndTheLicence() throws IOException {
        assertThat(home.resolve("bin/sluice")).isExecutable();
        assertThat(home.resolve("LICENSE")).content().contains("Apache License", "Version 2.0");
        assertThat(home.resolve("NOTICE")).content().contains("Logback", "Apache Kafka");
        assertThat(home.resolve("config/examples/passthrough.yaml")).isRegularFile();
        assertThat(home.resolve("config/examples/bridge.yaml")).isRegularFile();
        assertThat(home.resolve("kubernetes/base/kustomization.yaml")).isRegularFile();
        assertThat(home.resolve("kubernetes/base/sluice-proxy-deployment.yaml")).isRegularFile();
        // The Helm chart whole (templates, schema, .helmignore) and its example values (docs/kubernetes.md, "Helm").
        for (String file : List.of("Chart.yaml", "values.yaml", "values.schema.json", ".helmignore", "templates/_proxy-config.tpl",
                "templates/proxy-deployment.yaml")) {
            assertThat(home.resolve("kubernetes/helm/sluice").resolve(file)).isRegularFile();
        }
        assertThat(home.resolve("kubernetes/helm/examples/sni-loadbalancer.yaml")).isRegularFile();
        List<String> production = jars("lib");
        List<String> extra = jars("lib-extra");
        // What only the demo broker, the benchmarks and OMB load stays out of lib/, which the image ships alone.
        assertThat(production).noneMatch(j -> j.contains("kafka_2.13") || j.contains("scala") || j.contains("log4j-core")
                || j.contains("kafka-server") || j.contains("kafka-raft") || j.contains("sluice-omb-workloads") || j.contains("sluice-bench")
                || j.contains("sluice-testkit"));
        assertThat(extra).anyMatch(j -> j.startsWith("org.apache.kafka-kafka_2.13-")).anyMatch(j -> j.startsWith("org.scala-lang-scala-library-"))
                .anyMatch(j -> j.startsWith("org.apache.logging.log4j-log4j-core-")).anyMatch(j -> j.startsWith("io.sluice-sluice-omb-workloads-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-testkit-")).noneMatch(production::contains);
        List<String> jars = new ArrayList<>(production);
        jars.addAll(extra);
        assertThat(jars).anyMatch(j -> j.startsWith("io.sluice-sluice-app-"))
                .anyMatch(j -> j.matches("io\\.sluice-sluice-proxy-\\d.*\\.jar"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-proxy-api-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-common-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-auth-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-websocket-bridge-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-kms-aws-"))
                .anyMatch(j -> j.startsWith("software.amazon.awssdk-kms-"))
                .anyMatch(j -> j.startsWith("software.amazon.awssdk-netty-nio-client-"))
                .noneMatch(j -> j.startsWith("software.amazon.awssdk-apache-client-"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-kms-azure-"))
                .anyMatch(j -> j.startsWith("com.azure-azure-security-keyvault-keys-"))
                .anyMatch(j -> j.startsWith("com.azure-azure-core-http-jdk-httpclient-"))
                .noneMatch(j -> j.startsWith("com.azure-azure-core-http-netty-") || j.startsWith("io.projectreactor.netty-")
                        || j.startsWith("io.netty-netty-tcnative"))
                .anyMatch(j -> j.startsWith("io.sluice-sluice-kms-gcp-"))
                .anyMatch(j -> j.startsWith("com.google.cloud-google-cloud-kms-"))
                .anyMatch(j -> j.startsWith("com.google.api-gax-httpjson-"))
                .noneMatch(j -> j.startsWith("io.grpc-grpc-netty-shaded-") || j.startsWith("io.grpc-grpc-xds-"))
                .anyMatch(j -> j.startsWith("ch.qos.logback-logback-classic-"))
                .noneMatch(j -> j.contains("-tests") || j.contains("junit") || j.contains("assertj") || j.contains("kroxylicious"));
        // One version of each artifact (group-artifact[-classifier]); the version is the part after the artifact.
        Map<String, List<String>> byArtifact = jars.stream().collect(Collectors.groupingBy(
                j -> j.replaceFirst("-\\d[^-]*(?=(-linux-[a-z0-9_]+)?\\.jar$)", "")));
        assertThat(byArtifact).allSatisfy((artifact, versions) -> assertThat(versions).as(artifact).hasSize(1));
    }

    @Test
    void helpAnswersWithoutMavenOrSources() throws Exception {
        for (String help : List.of("help", "--help")) {
            Run run = run(List.of(help));
            assertThat(run.exitCode).as(help).isZero();
            assertThat(run.output).contains("usage: sluice", "proxy", "bridge", "demo", "bench proxy", "size")
                    .doesNotContain("mvn -B verify");
        }
        Run unknown = run(List.of("no-such-command"));
        assertThat(unknown.exitCode).isEqualTo(2);
        assertThat(unknown.output).contains("unknown command 'no-such-command'");
        assertThat(run(List.of("proxy", "--config", work.resolve("missing.yaml").toString())).exitCode).isEqualTo(2);

        Run version = run(List.of("--version"));
        assertThat(version.exitCode).isZero();
        assertThat(version.output.strip()).matches("sluice \\d\\S* \\(commit ([0-9a-f]{7,}|unknown)\\)");
        Run proxyHelp = run(List.of("proxy", "--help"));
        assertThat(proxyHelp.exitCode).isZero();
        assertThat(proxyHelp.output).startsWith("usage: sluice proxy").contains("--config=FILE", "--validate", "Exit codes:")
                .doesNotContain("\u001b[");
    }

    @Test
    void refusesAJavaOlderThan17() throws Exception {
        // A JAVA_HOME whose java reports version 11, as an old JDK prints it (to stderr).
        Path oldJava = Files.createDirectories(work.resolve("old-jdk/bin"));
        Path java = Files.writeString(oldJava.resolve("java"), "#!/bin/sh\necho 'openjdk version \"11.0.22\" 2024-01-16' >&2\n");
        assertThat(java.toFile().setExecutable(true)).isTrue();
        Path log = work.resolve("old-java.log");
        ProcessBuilder builder = builder(home, List.of("help"), Map.of(), log);
        builder.environment().put("JAVA_HOME", oldJava.getParent().toString());
        Process process = builder.start();
        started.add(process);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(1);
        assertThat(log).content().contains("Java 11.0.22", "Java 17 or newer is required");
    }

    @Test
    void proxyAndBridgeFromTheTarballServeARealBrokerAndABrowserAndStopOnSigterm() throws Exception {
        String topic = "scores";
        int proxyPort = FreePorts.block(3);
        int proxyManagement = FreePorts.block(1);
        // The shipped example with only its fixed management port moved, so parallel runs on one machine do not collide.
        String example = Files.readString(home.resolve("config/examples/passthrough.yaml"));
        assertThat(example).contains("port: 9190");
        Path proxyConfig = Files.writeString(work.resolve("passthrough.yaml"), example.replace("port: 9190", "port: " + proxyManagement));
        String proxyBootstrap = "127.0.0.1:" + proxyPort;
        Process proxy = start(List.of("proxy", "--config", proxyConfig.toString()),
                Map.of("KAFKA_BOOTSTRAP", cluster.getBootstrapServers(), "SLUICE_BOOTSTRAP", proxyBootstrap), "proxy.log");
        awaitReady(proxy, proxyManagement);

        io.sluice.testkit.Topics.createTopics(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxyBootstrap), List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<String, String> producer = producer(proxyBootstrap)) {
            producer.send(new ProducerRecord<>(topic, "warm-up", "{\"n\":0}")).get(30, TimeUnit.SECONDS);
        }
        assertThat(consumeOne(proxyBootstrap, topic).value()).isEqualTo("{\"n\":0}");

        Path jwks = Files.writeString(work.resolve("jwks.json"), TestIssuer.rsa().jwks());
        int bridgePort = FreePorts.block(1);
        int bridgeManagement = FreePorts.block(1);
        Process bridge = start(List.of("bridge", "--config", home.resolve("config/examples/bridge.yaml").toString()), Map.of(
                "KAFKA_BOOTSTRAP", proxyBootstrap,
                "SLUICE_BRIDGE_LISTEN", "127.0.0.1:" + bridgePort,
                "SLUICE_BRIDGE_TOPICS", topic,
                "SLUICE_JWKS", jwks.toString(),
                "SLUICE_JWT_ISSUER", TestIssuer.ISSUER,
                "SLUICE_JWT_AUDIENCE", TestIssuer.AUDIENCE,
                "SLUICE_BRIDGE_MANAGEMENT_PORT", Integer.toString(bridgeManagement)), "bridge.log");
        awaitReady(bridge, bridgeManagement);

        Browser browser = new Browser();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + bridgePort + "/ws"), browser).get(10, TimeUnit.SECONDS);
        String token = TestIssuer.rsa().token("fan", Duration.ofMinutes(5), Map.of("keys", Map.of(topic, Map.of("read", List.of("live/*")))));
        ws.sendText(JSON.createObjectNode().put("type", "connect").put("id", 1).put("token", token).toString(), true).get(5, TimeUnit.SECONDS);
        assertThat(browser.next().path("type").asText()).isEqualTo("connected");
        ws.sendText(JSON.createObjectNode().put("type", "subscribe").put("id", 2).put("endpoint", "/" + topic + "/live/final").toString(), true)
                .get(5, TimeUnit.SECONDS);
        assertThat(browser.next().path("type").asText()).isEqualTo("subscribed");
        try (KafkaProducer<String, String> producer = producer(proxyBootstrap)) {
            producer.send(new ProducerRecord<>(topic, "live/final", "{\"home\":2}")).get(30, TimeUnit.SECONDS);
        }
        JsonNode message = browser.next();
        assertThat(message.path("type").asText()).as("%s", message).isEqualTo("message");
        assertThat(message.toString()).contains("\"home\":2");

        // Chromium, with the JavaScript client this bridge serves itself, is served too. Without Chromium (outside CI) that
        // part is skipped and said; the SIGTERM checks below still run.
        try (HeadlessBrowser chromium = HeadlessBrowser.launch()) {
            String origin = "http://127.0.0.1:" + bridgePort;
            chromium.open(origin + "/sluice-bridge.js", "true");
            assertThat(chromium.eval("(async () => {"
                    + " const { SluiceBridge } = await import('/sluice-bridge.js');"
                    + " window.received = [];"
                    + " window.bridge = new SluiceBridge('ws://127.0.0.1:" + bridgePort + "/ws', { token: " + JSON.writeValueAsString(token) + " });"
                    + " await bridge.connect();"
                    + " await bridge.subscribe('/" + topic + "/live/browser', (m) => received.push(m.payload)).ready;"
                    + " return true; })()").asBoolean()).isTrue();
            try (KafkaProducer<String, String> producer = producer(proxyBootstrap)) {
                producer.send(new ProducerRecord<>(topic, "live/browser", "{\"away\":3}")).get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> chromium.eval("received.length").asInt() == 1);
            assertThat(chromium.eval("received[0]")).isEqualTo(JSON.readTree("{\"away\":3}"));
        } catch (TestAbortedException noBrowser) {
            System.out.println("DistributionIT: the browser check was skipped: " + noBrowser.getMessage());
        }

        // bin/sluice execs the JVM, so the signal reaches the server itself and the ports are released.
        assertStopsOnSigterm(bridge, bridgeManagement);
        assertStopsOnSigterm(proxy, proxyManagement);
    }

    /**
     * The logs an operator reads during a broker outage, with the shipped logging configuration: the proxy and a bridge
     * node reading through it, a consumer group member reconnecting through the proxy all along, the broker away for
     * 20 s. Each process says it lost the cluster once, says its own per-cause lines at most once per 10 s, and none
     * repeats kafka-clients' per-reconnect warnings (about one a second per client before). Readiness follows.
     */
    @Test
    void aBrokerOutageLogsAFewLinesAndReadinessFollowsIt() throws Exception {
        String topic = "outage";
        int proxyPort = FreePorts.block(3);
        int proxyManagement = FreePorts.block(1);
        String example = Files.readString(home.resolve("config/examples/passthrough.yaml"));
        Path proxyConfig = Files.writeString(work.resolve("outage-passthrough.yaml"), example.replace("port: 9190", "port: " + proxyManagement));
        String proxyBootstrap = "127.0.0.1:" + proxyPort;
        Path proxyLog = work.resolve("outage-proxy.log");
        Process proxy = start(List.of("proxy", "--config", proxyConfig.toString()),
                Map.of("KAFKA_BOOTSTRAP", cluster.getBootstrapServers(), "SLUICE_BOOTSTRAP", proxyBootstrap), proxyLog.getFileName().toString());
        awaitReady(proxy, proxyManagement);
        io.sluice.testkit.Topics.createTopics(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxyBootstrap), List.of(new NewTopic(topic, 1, (short) 1)));
        int bridgeManagement = FreePorts.block(1);
        Path bridgeLog = work.resolve("outage-bridge.log");
        Process bridge = start(List.of("bridge", "--config", home.resolve("config/examples/bridge.yaml").toString()), Map.of(
                "KAFKA_BOOTSTRAP", proxyBootstrap,
                "SLUICE_BRIDGE_LISTEN", "127.0.0.1:" + FreePorts.block(1),
                "SLUICE_BRIDGE_TOPICS", topic,
                "SLUICE_JWKS", Files.writeString(work.resolve("outage-jwks.json"), TestIssuer.rsa().jwks()).toString(),
                "SLUICE_JWT_ISSUER", TestIssuer.ISSUER,
                "SLUICE_JWT_AUDIENCE", TestIssuer.AUDIENCE,
                "SLUICE_BRIDGE_MANAGEMENT_PORT", Integer.toString(bridgeManagement)), bridgeLog.getFileName().toString());
        awaitReady(bridge, bridgeManagement);

        Thread member = new Thread(() -> pollUntilInterrupted(proxyBootstrap, topic), "outage-group-member");
        member.start();
        try {
            try (KafkaProducer<String, String> producer = producer(proxyBootstrap)) {
                producer.send(new ProducerRecord<>(topic, "k", "before")).get(30, TimeUnit.SECONDS);
            }
            assertThat(consumeOne(proxyBootstrap, topic).value()).isEqualTo("before");
            long proxyLinesBefore = Files.readAllLines(proxyLog).size();
            long bridgeLinesBefore = Files.readAllLines(bridgeLog).size();

            long stoppedAt = System.nanoTime();
            cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);
            try {
                await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500))
                        .until(() -> readyz(proxyManagement) == 503 && readyz(bridgeManagement) == 503);
                assertThat(livez(proxyManagement)).as("liveness ignores the broker").isEqualTo(200);
                // The outage lasts 20 s, whatever the machine's speed: the lines below are what 20 s of it logs (two of
                // the 10 s windows the per-cause lines are limited to; kafka-clients alone logged one a second per client).
                long left = OUTAGE.toNanos() - (System.nanoTime() - stoppedAt);
                if (left > 0) {
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left));
                }
                List<String> proxyDuring = linesAfter(proxyLog, proxyLinesBefore);
                List<String> bridgeDuring = linesAfter(bridgeLog, bridgeLinesBefore);
                System.out.printf("DistributionIT: 20 s of broker outage: the proxy logged %d line(s), the bridge %d:%n%s%n", proxyDuring.size(),
                        bridgeDuring.size(), String.join("\n", Stream.concat(proxyDuring.stream(), bridgeDuring.stream()).toList()));
                assertThat(proxyDuring).as("the proxy's lines during 20 s of outage: %s", proxyDuring).hasSizeLessThanOrEqualTo(8)
                        .noneMatch(line -> line.contains("NetworkClient") || line.contains("CompletionException"))
                        .filteredOn(line -> line.contains("cannot discover the target cluster's brokers")).hasSize(1);
                assertThat(bridgeDuring).as("the bridge's lines during 20 s of outage: %s", bridgeDuring).hasSizeLessThanOrEqualTo(4)
                        .noneMatch(line -> line.contains("NetworkClient"))
                        .filteredOn(line -> line.contains("WARN") && line.contains("Kafka has not answered for")).hasSize(1);
            } finally {
                cluster.startNodes(n -> true);
            }
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> readyz(proxyManagement) == 200 && readyz(bridgeManagement) == 200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(linesAfter(proxyLog, proxyLinesBefore)).anyMatch(line -> line.contains("target cluster reachable again"));
                assertThat(linesAfter(bridgeLog, bridgeLinesBefore)).anyMatch(line -> line.contains("INFO") && line.contains("Kafka answers again after"));
            });
        } finally {
            member.interrupt();
            member.join(30_000);
        }
        assertStopsOnSigterm(bridge, bridgeManagement);
        assertStopsOnSigterm(proxy, proxyManagement);
    }

    private static List<String> linesAfter(Path log, long skip) throws IOException {
        return Files.readAllLines(log).stream().skip(skip).toList();
    }

    private static int readyz(int managementPort) {
        return status(managementPort, "/readyz");
    }

    private static int livez(int managementPort) {
        return status(managementPort, "/livez");
    }

    private static int status(int managementPort, String path) {
        try {
            return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + managementPort + path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** A consumer group member through the proxy that keeps polling (and reconnecting) until interrupted. */
    private static void pollUntilInterrupted(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "outage-member");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (!Thread.currentThread().isInterrupted()) {
                consumer.poll(Duration.ofMillis(500));
            }
        } catch (org.apache.kafka.common.errors.InterruptException stopped) {
            // interrupted: the test is over
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
    }

    private static ConsumerRecord<String, String> consumeOne(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "distribution-it");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    return record;
                }
            }
        }
        throw new AssertionError("no record consumed through the proxy within 30 s");
    }

    /**
     * The JavaScript client ships as the npm tarball that the bridge module builds and ClientPackageTest installs and runs:
     * clients/sluice-bridge-client-VERSION.tgz, a package of the release's version, nothing under lib/.
     */
    @Test
    void theReleaseCarriesTheJavaScriptClientAsAnNpmPackage() throws Exception {
        String version = home.getFileName().toString().substring("sluice-".length());
        Path client = home.resolve("clients/sluice-bridge-client-" + version + ".tgz");
        assertThat(client).isRegularFile();
        try (Stream<Path> clients = Files.list(home.resolve("clients"))) {
            assertThat(clients).hasSize(1);
        }
        Process tar = new ProcessBuilder("tar", "-xzOf", client.toString(), "package/package.json").start();
        JsonNode manifest = JSON.readTree(tar.getInputStream());
        assertThat(tar.waitFor()).isZero();
        assertThat(manifest.path("name").asText()).isEqualTo("sluice-bridge-client");
        assertThat(manifest.path("version").asText()).isEqualTo(version);
        assertThat(manifest.has("private")).isFalse();
        assertThat(jars("lib")).noneMatch(j -> j.endsWith(".tgz"));
    }

    /** Every docs/NAME.md that a command's --help names is in the tarball, with the images the docs show. */
    @Test
    void theDocsThatHelpPointsToAreInTheTarball() throws IOException {
        java.io.StringWriter help = new java.io.StringWriter();
        java.util.ArrayDeque<picocli.CommandLine> commands = new java.util.ArrayDeque<>(List.of(io.sluice.app.cli.Main.commandLine()));
        while (!commands.isEmpty()) {
            picocli.CommandLine command = commands.pop();
            command.usage(new java.io.PrintWriter(help));
            commands.addAll(command.getSubcommands().values());
        }
        java.util.Set<String> pointers = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("docs/[\\w-]+\\.md").matcher(help.toString());
        while (m.find()) {
            pointers.add(m.group());
        }
        assertThat(pointers).contains("docs/configuration.md", "docs/sizing.md");
        assertThat(pointers).allSatisfy(doc -> assertThat(home.resolve(doc)).isRegularFile());
        assertThat(home.resolve("README.md")).content().contains("Kafka", "Java 17");
        assertThat(home.resolve("CHANGELOG.md")).isRegularFile();
        assertThat(home.resolve("docs/images")).isDirectoryContaining("glob:**.svg");
    }

    private static List<String> jars(String dir) throws IOException {
        try (Stream<Path> lib = Files.list(home.resolve(dir))) {
            return lib.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /**
     * Demo from the full tarball: the broker from lib-extra/, a round trip through the proxy. Without lib-extra/ (the
     * image), {@code demo} says what is missing instead of a NoClassDefFoundError.
     */
    @Test
    void demoRunsWithLibExtraAndTheSlimInstallSaysWhatItLacks() throws Exception {
        int port = FreePorts.block(4);
        int management = FreePorts.block(1);
        Run demo = run(home, List.of("demo", "--check", "--bootstrap", "127.0.0.1:" + port, "--management-port", Integer.toString(management)),
                Map.of("SLUICE_JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC"), Duration.ofSeconds(180));
        assertThat(demo.exitCode).as(demo.output).isZero();
        assertThat(demo.output).contains("Sluice demo is running.", "produced and read back");

        Run slimDemo = run(slim, List.of("demo", "--check"), Map.of(), Duration.ofSeconds(60));
        assertThat(slimDemo.exitCode).isEqualTo(1);
        assertThat(slimDemo.output).contains("'demo' needs the jars in", "lib-extra").doesNotContain("NoClassDefFoundError");
    }

    /**
     * The heap follows the container: without a heap option in SLUICE_JAVA_OPTS the launcher adds
     * -XX:MaxRAMPercentage=50; with one (what the manifests set from {@code sluice size}) it adds nothing.
     */
    @Test
    void theDefaultHeapIsAShareOfTheMemoryUnlessTheOptionsSetOne() throws Exception {
        Run unset = run(slim, List.of("--version"), Map.of("SLUICE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), Duration.ofSeconds(60));
        assertThat(unset.exitCode).isZero();
        assertThat(flag(unset.output, "MaxRAMPercentage")).isEqualTo("50.000000");
        Run explicit = run(slim, List.of("--version"), Map.of("SLUICE_JAVA_OPTS", "-Xmx200m -XX:+PrintFlagsFinal"), Duration.ofSeconds(60));
        assertThat(flag(explicit.output, "MaxRAMPercentage")).as("the JVM's own default: the launcher added none").isEqualTo("25.000000");
        assertThat(flag(explicit.output, "MaxHeapSize")).isEqualTo(Long.toString(200L << 20));
    }

    private static String flag(String printFlagsFinal, String name) {
        return printFlagsFinal.lines().filter(l -> l.matches("\\s*\\S+\\s+" + name + "\\s+=.*")).findFirst()
                .map(l -> l.replaceFirst(".*=\\s*(\\S+).*", "$1")).orElseThrow(() -> new AssertionError(name + " not printed"));
    }

    /** Runs {@code bin/sluice ARGS} to completion. */
    private Run run(List<String> args) throws Exception {
        return run(home, args, Map.of(), Duration.ofSeconds(60));
    }

    private Run run(Path install, List<String> args, Map<String, String> env, Duration timeout) throws Exception {
        Path log = Files.createTempFile(work, "run-", ".log");
        Process process = builder(install, args, env, log).start();
        started.add(process);
        assertThat(process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)).as("bin/sluice %s finished", args).isTrue();
        return new Run(process.exitValue(), Files.readString(log));
    }

    /** Starts {@code bin/sluice ARGS} from the slim install: the proxy and the bridge run without lib-extra/, as in the image. */
    private Process start(List<String> args, Map<String, String> env, String logName) throws IOException {
        Path log = work.resolve(logName);
        Process process = builder(slim, args, env, log).start();
        started.add(process);
        logs.put(process, log);
        return process;
    }

    private ProcessBuilder builder(Path install, List<String> args, Map<String, String> env, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(install.resolve("bin/sluice").toString());
        command.addAll(args);
        Path cwd = Files.createDirectories(work.resolve("cwd"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.put("PATH", toolsOnly.toString());
        environment.put("HOME", cwd.toString());
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.put("SLUICE_JAVA_OPTS", JVM);
        environment.putAll(env);
        return builder;
    }

    private void awaitReady(Process process, int managementPort) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("exited with code " + process.exitValue() + " before it was ready; the end of its log:\n" + logTail(process));
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/readyz"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not ready within " + START + "; the end of its log:\n" + logTail(process));
    }

    /** The last 40 lines the process logged, or why there are none. */
    private String logTail(Process process) {
        Path log = logs.get(process);
        if (log == null) {
            return "(no log recorded for pid " + process.pid() + ")";
        }
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    private static void assertStopsOnSigterm(Process process, int managementPort) throws Exception {
        process.destroy(); // SIGTERM
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s of SIGTERM").isTrue();
        // A JVM ended by SIGTERM after its shutdown hooks exits with 128 + 15.
        assertThat(process.exitValue()).isIn(0, 143);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        boolean refused;
        try {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
            refused = false;
        } catch (IOException e) {
            refused = true;
        }
        assertThat(refused).as("management port %d closed once the process ended", managementPort).isTrue();
        assertThat(process.descendants().count()).isZero();
    }

    private record Run(int exitCode, String output) {
    }

    /** A WebSocket client as a browser page is one: text messages in, parsed as the bridge's JSON protocol. */
    private static final class Browser implements WebSocket.Listener {
        private final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    received.add(JSON.readTree(partial.toString()));
                } catch (IOException e) {
                    received.add(JSON.createObjectNode().put("type", "unparseable").put("text", partial.toString()));
                }
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        JsonNode next() throws InterruptedException {
            JsonNode m = received.poll(30, TimeUnit.SECONDS);
            assertThat(m).as("a message from the bridge within 30 s").isNotNull();
            return m;
        }
    }
}
