package io.sluice.bridge.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.bridge.web.StaticContent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JavaScript client as its users get it: the npm tarball the build makes (src/assembly/npm-package.xml, shipped in
 * the release's clients/), checked against what {@code npm pack} would publish, installed into a scratch project with
 * npm, compiled against by a strict TypeScript project, and run against a real bridge and Kafka under Node and in
 * Chromium (imported by its package name through an import map).
 */
@ExtendWith(KafkaClusterExtension.class)
class ClientPackageTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PACKAGE = "sluice-bridge-client";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    static Path scratch;

    static Path packed;
    static KafkaHelper kafka;

    @BeforeAll
    static void install() throws Exception {
        NodeTools.requireNpmPackages();
        packed = packedTarball();
        Files.writeString(scratch.resolve("package.json"), "{\"name\": \"scratch\", \"version\": \"1.0.0\", \"private\": true, \"type\": \"module\"}");
        // --offline: the package has no dependencies, so installing it must not need the registry.
        NodeTools.Result npm = NodeTools.run(scratch, List.of("npm", "install", "--offline", "--no-audit", "--no-fund", packed.toString()));
        assertThat(npm.exitCode()).as(npm.output()).isZero();
        for (String file : List.of("round-trip.mjs", "node-main.mjs", "page.html", "consumer.ts", "tsconfig.json")) {
            try (var in = ClientPackageTest.class.getResourceAsStream("/packed-client/" + file)) {
                Files.write(scratch.resolve(file), in.readAllBytes());
            }
        }
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** target/sluice-websocket-bridge-VERSION-npm.tgz, made in process-resources. */
    private static Path packedTarball() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith("-npm.tgz")).toList();
            assertThat(found).as("the npm tarball the build makes in target/ (mvn process-resources)").hasSize(1);
            return found.get(0).toAbsolutePath();
        }
    }

    private static Path installed() {
        return scratch.resolve("node_modules").resolve(PACKAGE);
    }

    @Test
    void theTarballHoldsExactlyWhatNpmPackWouldPublishAndIsAPublicPackageOfTheProjectsVersion() throws Exception {
        NodeTools.Result dryRun = NodeTools.run(List.of("npm", "pack", "--dry-run", "--json"));
        assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
        Set<String> npmWouldPack = new TreeSet<>();
        JSON.readTree(dryRun.output().substring(dryRun.output().indexOf('['))).get(0).get("files")
                .forEach(f -> npmWouldPack.add(f.get("path").asText()));
        assertThat(npmWouldPack).contains("package.json", "README.md", "LICENSE", "sluice-bridge.js", "sluice-bridge.d.ts",
                "bridge-protocol.js", "bridge-protocol.d.ts", "subscription.js", "websocket-transport.js", "sse-transport.js",
                "sse-parser.js", "sse-parser.d.ts", "sse-event-id.js", "json-patch.js", "json-patch.d.ts");

        NodeTools.Result listing = NodeTools.run(List.of("tar", "tzf", packed.toString()));
        assertThat(listing.exitCode()).as(listing.output()).isZero();
        Set<String> shipped = new TreeSet<>();
        for (String entry : listing.output().split("\n")) {
            assertThat(entry).as("every entry under package/, as npm expects").startsWith("package/");
            if (!entry.endsWith("/")) {
                shipped.add(entry.substring("package/".length()));
            }
        }
        assertThat(shipped).isEqualTo(npmWouldPack);

        JsonNode manifest = JSON.readTree(installed().resolve("package.json").toFile());
        String projectVersion = packed.getFileName().toString().replaceFirst("^sluice-websocket-bridge-", "").replaceFirst("-npm\\.tgz$", "");
        assertThat(manifest.path("version").asText()).as("package.json's version follows the project's").isEqualTo(projectVersion);
        assertThat(manifest.has("private")).as("an installable, publishable package").isFalse();
        assertThat(manifest.path("exports").path(".").path("types").asText()).isEqualTo("./sluice-bridge.d.ts");
        assertThat(manifest.path("dependencies").size()).as("no runtime dependencies").isZero();
        assertThat(Files.readString(installed().resolve("LICENSE")))
                .isEqualTo(Files.readString(NodeTools.CLIENT_JS.resolve("../../LICENSE").normalize()));
    }

    @Test
    void theDeclarationsPassTscStrictAndMatchWhatTheModulesExport() throws Exception {
        NodeTools.Result tsc = NodeTools.run(List.of("node", "node_modules/typescript/bin/tsc", "-p", "test/types"));
        assertThat(tsc.exitCode()).as(tsc.output()).isZero();
        NodeTools.Result exports = NodeTools.run(List.of("node", "--test", "test/types/declarations.test.js"));
        assertThat(exports.exitCode()).as(exports.output()).isZero();
        assertThat(exports.output()).contains("# pass 5", "# fail 0");
    }

    @Test
    void aStrictTypeScriptProjectCompilesAgainstTheInstalledPackage() throws Exception {
        Path tsc = NodeTools.CLIENT_JS.resolve("node_modules/typescript/bin/tsc").toAbsolutePath();
        NodeTools.Result compiled = NodeTools.run(scratch, List.of("node", tsc.toString(), "-p", "tsconfig.json"));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
    }

    @Test
    void theInstalledPackageRunsAgainstARealBridgeUnderNode() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-npm", "topics: " + topic)) {
            List<String> command = new ArrayList<>(List.of("node"));
            if (!nodeHasWebSocket()) {
                command.add("--experimental-websocket"); // Node 20; 22 and later have WebSocket built in
            }
            command.addAll(List.of("node-main.mjs", "ws://127.0.0.1:" + bridge.port() + "/ws", token(topic), topic));
            NodeTools.Result run = NodeTools.run(scratch, command);
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertRoundTrip(JSON.readTree(run.output().lines().reduce((a, b) -> b).orElseThrow()), topic);
        }
    }

    @Test
    void theInstalledPackageRunsInChromiumImportedByItsNameThroughAnImportMap() throws Exception {
        NodeTools.requireBrowser();
        String topic = kafka.createTopic(1);
        StaticContent site = StaticContent.none();
        site = serve(site, "/page.html", scratch.resolve("page.html"), "text/html; charset=utf-8");
        site = serve(site, "/round-trip.mjs", scratch.resolve("round-trip.mjs"), "text/javascript; charset=utf-8");
        try (Stream<Path> files = Files.list(installed())) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".js")).toList()) {
                site = serve(site, "/node_modules/" + PACKAGE + "/" + file.getFileName(), file, "text/javascript; charset=utf-8");
            }
        }
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-npm-browser").serving(site).start("topics: " + topic);
                HeadlessBrowser browser = HeadlessBrowser.launch()) {
            browser.open("http://127.0.0.1:" + bridge.port() + "/page.html", "window.packed !== undefined");
            String args = JSON.writeValueAsString(JSON.createObjectNode().put("url", "ws://127.0.0.1:" + bridge.port() + "/ws")
                    .put("token", token(topic)).put("topic", topic));
            assertRoundTrip(browser.eval("packed.run(" + args + ")"), topic);
            // The package's second entry point resolves too.
            assertThat(browser.eval("packed.patch({a: 1}, [{op: 'add', path: '/b', value: 2}])"))
                    .isEqualTo(JSON.readTree("{\"a\":1,\"b\":2}"));
        }
    }

    private static StaticContent serve(StaticContent site, String path, Path file, String type) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return site.withGenerated(path, type, () -> bytes);
    }

    private static String token(String topic) {
        return TestAuthenticator.token("alice", topic + "/*", topic + "/*");
    }

    private static boolean nodeHasWebSocket() throws Exception {
        return NodeTools.run(List.of("node", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)")).exitCode() == 0;
    }

    /** What round-trip.mjs returns: four publishes acknowledged and received back in order, one refused. */
    private static void assertRoundTrip(JsonNode result, String topic) throws Exception {
        assertThat(result.path("subject").asText()).as(result.toString()).isEqualTo("alice");
        assertThat(result.path("errors")).as(result.toString()).isEmpty();
        JsonNode received = result.path("received");
        assertThat(received).as(result.toString()).hasSize(4);
        assertThat(received).extracting(m -> m.get("endpoint").asText()).containsOnly("/" + topic + "/room/1");
        List<Long> acks = new ArrayList<>();
        result.path("acks").forEach(ack -> acks.add(ack.asLong()));
        assertThat(received).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(acks);
        assertThat(received).extracting(m -> m.get("format").asText()).containsExactly("json", "text", "base64", "none");
        assertThat(received.get(0).get("payload")).isEqualTo(JSON.readTree("{\"text\":\"hi\",\"n\":[1,2.5,null]}"));
        assertThat(received.get(1).get("payload").asText()).isEqualTo("hello \u00e9");
        assertThat(received.get(2).get("payload")).isEqualTo(JSON.readTree("{\"bytes\":[0,128,255]}"));
        assertThat(received.get(3).get("payload").isNull()).isTrue();
        assertThat(result.path("refused").path("isBridgeError").asBoolean()).as(result.toString()).isTrue();
        assertThat(result.path("refused").path("code").asText()).isEqualTo("unknown_endpoint");
        assertThat(result.path("duplicatesDropped").asInt()).isZero();
    }
}
