package io.sluice.bridge.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.ErrorCodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker is stopped and started again under a running node (a cluster of its own per test): readiness follows
 * it (docs/bridge.md, "Metrics, health and logs"), liveness does not, and the failures it causes cost a bounded number
 * of log lines however many clients run into them.
 */
@ExtendWith(KafkaClusterExtension.class)
class KafkaOutageTest {

    private static final int CLIENTS = 8;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void readinessFailsWhileTheBrokerIsDownAndReturnsWithItAndRecoveryFailuresLogFewLines(KafkaCluster cluster) throws Exception {
        Logger bridgeLogs = (Logger) LoggerFactory.getLogger("io.sluice.bridge");
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        bridgeLogs.addAppender(logs);
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            // A cache of one message per endpoint: recovering from before the last one reads the Kafka log.
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-outage",
                    "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 1\n  kafkaTimeout: 1s\n  kafkaQueue: 100\n")) {
                String token = TestAuthenticator.token("olga", topic + "/*", "");
                JsonNode subscribed;
                try (WsClient first = WsClient.connected(bridge.port(), token)) {
                    subscribed = first.subscribe("/" + topic + "/*");
                }
                JsonNode position = subscribed.get("positions").get(0);
                for (int i = 0; i < 3; i++) {
                    kafka.send(topic, 0, "k", "v" + i);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 3);
                await().atMost(Duration.ofSeconds(30)).until(() -> get(bridge, "/readyz").statusCode() == 200);

                cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);
                int warningsBefore = warnings(logs).size();
                // Documented: not ready within ANSWER_MAX_AGE (10 s) and one probe; bounded generously for a busy machine.
                await().atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(250)).until(() -> get(bridge, "/readyz").statusCode() == 503);
                HttpResponse<String> down = get(bridge, "/readyz");
                assertThat(down.body()).contains("\"failing\":[\"kafka\"]").contains("Kafka has not answered");
                assertThat(get(bridge, "/healthz").statusCode()).as("liveness ignores Kafka").isEqualTo(200);

                // Every reconnecting client's recovery from the log fails while the broker is down.
                List<WsClient> clients = new ArrayList<>();
                try {
                    for (int i = 0; i < CLIENTS; i++) {
                        WsClient client = WsClient.connected(bridge.port(), token);
                        clients.add(client);
                        client.subscribe("/" + topic + "/*", m -> m.putArray("recover").addObject()
                                .put("epoch", position.get("epoch").asText()).put("seq", position.get("seq").asLong()));
                    }
                    for (WsClient client : clients) {
                        JsonNode error = client.expect("error");
                        assertThat(error.get("code").asText()).isEqualTo(ErrorCodes.RECOVERY_FAILED);
                    }
                }
                finally {
                    clients.forEach(WsClient::close);
                }
                List<String> all = warnings(logs);
                List<String> during = all.subList(warningsBefore, all.size());
                // One line per cause and 10 s: the failures take a few seconds, so at most two per cause; and the node's
                // one line that it lost Kafka.
                assertThat(during).as("WARN lines during the outage: %s", during).hasSizeLessThanOrEqualTo(3)
                        .noneMatch(line -> line.contains("CompletionException") || line.contains("ExecutionException"));
                assertThat(during).anyMatch(line -> line.contains("recovery of /" + topic + "/* from Kafka failed: TimeoutException"));
                assertThat(during).filteredOn(line -> line.startsWith("Kafka has not answered for "))
                        .singleElement().asString().endsWith("the node reports not ready until it does");

                cluster.startNodes(n -> true);
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> get(bridge, "/readyz").statusCode() == 200);
                await().atMost(Duration.ofSeconds(10)).until(() -> messages(logs, Level.INFO).stream().anyMatch(line -> line.startsWith("Kafka answers again after ")));
            }
        }
        finally {
            bridgeLogs.detachAppender(logs);
        }
    }

    /**
     * A node stopped while Kafka is away ends its reader before its stop returns. The reader then waits in a metadata
     * call (describing its topics, up to 30 s) that the consumer's wakeup does not end, and the clients' default closes
     * wait for the calls still pending; the stop used to give up after 10 s and leave the thread running.
     */
    @Test
    void aNodeStoppedWhileKafkaIsAwayEndsItsReader(KafkaCluster cluster) throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-stopped-in-outage", "topics: " + topic);
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> get(bridge, "/readyz").statusCode() == 200);
                assertThat(readerThreads("node-stopped-in-outage")).hasSize(1);
                cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);
                await().atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(250)).until(() -> get(bridge, "/readyz").statusCode() == 503);
            }
            finally {
                bridge.close();
            }
            assertThat(readerThreads("node-stopped-in-outage")).as("reader threads left after the node stopped").isEmpty();
        }
        finally {
            cluster.startNodes(n -> true);
        }
    }

    /**
     * An HTTP publish while Kafka is away is answered 503 {@code publish_failed} once {@code kafka.publishTimeout} has
     * passed, and it is not written later: the producer's delivery timeout is the publish timeout, so the record expires
     * in the producer instead of waiting there for the broker. Once Kafka is back, the same publish succeeds.
     */
    @Test
    void anHttpPublishWhileKafkaIsAwayIs503AndIsNotWrittenWhenKafkaReturns(KafkaCluster cluster) throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-publish-outage")
                    .kafka("publishTimeout: 3s").start("topics: " + topic)) {
                String token = TestAuthenticator.token("pia", "", topic + "/*");
                URI publish = URI.create("http://127.0.0.1:" + bridge.port() + "/ws/publish?endpoint=/" + topic + "/k");
                HttpRequest request = HttpRequest.newBuilder(publish).header("Authorization", "Bearer " + token)
                        .header("Content-Type", "text/plain").timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofString("during the outage")).build();
                try {
                    cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);
                    HttpResponse<String> refused = http.send(request, HttpResponse.BodyHandlers.ofString());
                    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                    assertThat(refused.body()).contains("\"code\":\"" + ErrorCodes.PUBLISH_FAILED + "\"").doesNotContain(token);
                }
                finally {
                    cluster.startNodes(n -> true);
                }
                HttpResponse<String> accepted = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
                        .until(() -> http.send(HttpRequest.newBuilder(publish).header("Authorization", "Bearer " + token)
                                .header("Content-Type", "text/plain").timeout(Duration.ofSeconds(60))
                                .POST(HttpRequest.BodyPublishers.ofString("after the outage")).build(),
                                HttpResponse.BodyHandlers.ofString()), r -> r.statusCode() == 200);
                assertThat(accepted.body()).contains("\"type\":\"ack\"");
                assertThat(kafka.readAll(topic)).extracting(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
                        .as("the refused publish was not written later").doesNotContain("during the outage").contains("after the outage");
            }
        }
    }

    private static List<Thread> readerThreads(String node) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("sluice-bridge-reader-" + node)).toList();
    }

    private static List<String> warnings(ListAppender<ILoggingEvent> logs) {
        return messages(logs, Level.WARN);
    }

    private static List<String> messages(ListAppender<ILoggingEvent> logs, Level atLeast) {
        synchronized (logs) {
            return logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(atLeast)).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    private HttpResponse<String> get(BridgeFixture bridge, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.server().managementPort() + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
