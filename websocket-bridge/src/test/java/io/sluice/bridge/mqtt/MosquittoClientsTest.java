package io.sluice.bridge.mqtt;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.Executables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The MQTT listener judged by Debian's {@code mosquitto_sub} and {@code mosquitto_pub} (mosquitto-clients 2.0), MQTT
 * 3.1.1 and 5.0: a wildcard subscription receives exactly the permitted keys, a QoS 1 publish is in Kafka once, an
 * expired token and a forbidden filter are refused. The token reaches the tools in their options file (under
 * {@code XDG_CONFIG_HOME}), never in their arguments. Without the tools the test fails under CI ({@code .ci/run}
 * installs them as root) and is skipped elsewhere, saying why.
 */
class MosquittoClientsTest {

    // The test kit's one broker for this JVM: the MQTT classes need a broker, not one each.
    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(MqttNodes::sharedKafka);

    @TempDir
    static Path config;

    @BeforeAll
    static void requireTools() {
        if (Executables.onPath("mosquitto_sub") && Executables.onPath("mosquitto_pub")) {
            return;
        }
        String problem = "mosquitto_sub/mosquitto_pub are not on the PATH (apt-get install -y mosquitto-clients; .ci/run does this as root)";
        if (System.getenv("CI") != null) {
            fail("mosquitto client tests cannot run: " + problem);
        }
        System.out.println("Skipping the mosquitto client tests: " + problem);
        Assumptions.abort(problem);
    }

    @Test
    void mosquittoSubscribesToAWildcardPublishesAndIsRefusedWhereTheTokenSaysSo() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = MqttNodes.start(kafka, "node-mosquitto", topic, "")) {
            String port = Integer.toString(bridge.server().mqttPort());
            Path good = options("good", TestAuthenticator.token("mosquitto", topic + "/live/*", topic + "/in/*"));
            for (String version : List.of("mqttv5", "mqttv311")) {
                Process sub = start(good, "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-V", version, "-i", "sub-" + version,
                        "-t", topic + "/live/" + version + "/#", "-q", "1", "-C", "2", "-W", "60", "-v");
                CompletableFuture<List<String>> lines = lines(sub);
                // mosquitto_sub's output is buffered until it exits: the node says when it has subscribed.
                Awaitility.await().atMost(Duration.ofSeconds(30)).failFast(() -> !sub.isAlive())
                        .until(() -> bridge.metric("sluice_bridge_subscriptions", "") >= 1);
                kafka.send(topic, "live/" + version + "/a", "{\"n\":1}");
                kafka.send(topic, "secret", "{\"n\":2}");
                kafka.send(topic, "live/" + version + "/b", "text " + version);
                assertThat(sub.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(sub.exitValue()).isZero();
                List<String> received = lines.get(10, TimeUnit.SECONDS).stream().filter(l -> l.startsWith(topic + "/")).toList();
                assertThat(received).containsExactly(topic + "/live/" + version + "/a {\"n\":1}", topic + "/live/" + version + "/b text " + version);

                Process pub = start(good, "mosquitto_pub", "-h", "127.0.0.1", "-p", port, "-V", version, "-i", "pub-" + version,
                        "-t", topic + "/in/" + version, "-q", "1", "-m", "{\"from\":\"mosquitto\"}");
                assertThat(pub.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(pub.exitValue()).as(output(pub)).isZero();

                // A filter the token may not read: SUBACK failure, which mosquitto_sub reports and exits on.
                Process forbidden = start(good, "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-V", version, "-i", "nope-" + version,
                        "-t", topic + "/secret", "-C", "1", "-W", "20");
                assertThat(forbidden.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(output(forbidden)).containsIgnoringCase("denied");
            }
            // A new subscription gets each endpoint's latest value at once, flagged retained (%r), from the node's cache.
            Process retained = start(good, "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", topic + "/live/#",
                    "-C", "4", "-W", "20", "-F", "%r %t %p");
            assertThat(retained.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(output(retained).lines().toList()).containsExactlyInAnyOrder(
                    "1 " + topic + "/live/mqttv5/a {\"n\":1}", "1 " + topic + "/live/mqttv5/b text mqttv5",
                    "1 " + topic + "/live/mqttv311/a {\"n\":1}", "1 " + topic + "/live/mqttv311/b text mqttv311");

            Path expired = options("expired", "sub=late;exp=1000;read=" + topic + "/*;write=");
            Process refused = start(expired, "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-V", "mqttv311", "-t", topic + "/#", "-W", "20");
            assertThat(refused.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(refused.exitValue()).isNotZero();
            assertThat(output(refused)).containsIgnoringCase("not authori");

            List<String> published = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic)) {
                String key = new String(r.key(), StandardCharsets.UTF_8);
                if (key.startsWith("in/")) {
                    published.add(key + "=" + new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            assertThat(published).containsExactly("in/mqttv5={\"from\":\"mosquitto\"}", "in/mqttv311={\"from\":\"mosquitto\"}");
        }
    }

    /** A config home whose mosquitto_sub and mosquitto_pub options files carry the user name and the token. */
    private static Path options(String name, String token) throws Exception {
        Path home = Files.createDirectories(config.resolve(name));
        for (String tool : List.of("mosquitto_sub", "mosquitto_pub")) {
            Path file = home.resolve(tool);
            Files.writeString(file, "-u device\n-P " + token + "\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        return home;
    }

    private static Process start(Path configHome, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("XDG_CONFIG_HOME", configHome.toString());
        return builder.start();
    }

    private static CompletableFuture<List<String>> lines(Process process) {
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<List<String>> all = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    System.out.println(process.info().command().orElse("?") + ": " + line);
                    seen.add(line);
                }
            }
            catch (java.io.IOException e) {
                // the process ended
            }
            return seen;
        });
        return all;
    }

    private static String output(Process process) throws Exception {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
