package io.sluice.bridge.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST {server.path}/publish} against a real node and real Kafka: curl publishing, the records read back with
 * kafka-clients and with librdkafka, and the hostile requests (oversized bodies, pipelined floods, bad payloads,
 * endpoints the token may not write, a keep-alive connection outliving the handshake timeout).
 */
@ExtendWith(KafkaClusterExtension.class)
class HttpPublishTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 4096;

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static String writer(String topic) {
        return TestAuthenticator.token("alice", topic + "/*", topic + "/a");
    }

    /** @param sections more top-level YAML after {@code topics:} (e.g. formats, requests, connections) */
    private static BridgeFixture bridge(String topic, String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-http", "maxInboundMessageBytes: " + MAX_BODY,
                "topics: " + topic + "\n" + sections);
    }

    private static HttpResponse<String> post(BridgeFixture bridge, String endpoint, String token, String contentType, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.port() + "/ws/publish?endpoint=" + endpoint))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(String topic) {
        return records(cluster.getBootstrapServers(), topic);
    }

    /** Every record of partition 0, read by kafka-clients. */
    static List<ConsumerRecord<byte[], byte[]>> records(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "key.deserializer", ByteArrayDeserializer.class, "value.deserializer", ByteArrayDeserializer.class))) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
            return records;
        }
    }

    private static String curl(BridgeFixture bridge, Path headers, String endpoint, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "-X", "POST", "-H", "@" + headers, "-w", "\n%{http_code}"));
        command.addAll(List.of(options));
        command.add("http://127.0.0.1:" + bridge.port() + "/ws/publish?endpoint=" + endpoint);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("curl finished").isTrue();
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static boolean curlAvailable() {
        try {
            return new ProcessBuilder("curl", "--version").start().waitFor(10, TimeUnit.SECONDS);
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void curlPublishesJsonTextBytesAndATombstoneReadBackByKafkaClientsAndLibrdkafka(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(curlAvailable(), "curl is not installed");
        String topic = kafka.createTopic(1);
        // The token travels in a file, not on curl's command line.
        Path headers = Files.writeString(dir.resolve("headers"), "Authorization: Bearer " + writer(topic) + "\n");
        byte[] binary = {0, 1, 2, (byte) 0xff, (byte) 0xc3, 0x28};
        Path bytes = Files.write(dir.resolve("bytes"), binary);
        try (BridgeFixture bridge = bridge(topic, "")) {
            List<String> answers = List.of(
                    curl(bridge, headers, "/" + topic + "/a", "-H", "Content-Type: application/json", "--data-binary", "{\"score\": [1, 0], \"text\": \"caf\u00e9\"}"),
                    curl(bridge, headers, "/" + topic + "/a", "-H", "Content-Type: text/plain; charset=utf-8", "--data-binary", "plain \"text\" caf\u00e9"),
                    curl(bridge, headers, "/" + topic + "/a", "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + bytes),
                    curl(bridge, headers, "/" + topic + "/a"));

            for (int i = 0; i < answers.size(); i++) {
                String answer = answers.get(i);
                assertThat(answer).as("curl's answer " + i).endsWith("\n200");
                JsonNode ack = JSON.readTree(answer.substring(0, answer.lastIndexOf('\n')));
                assertThat(ack.get("type").asText()).isEqualTo("ack");
                assertThat(ack.get("endpoint").asText()).isEqualTo("/" + topic + "/a");
                assertThat(ack.get("seq").asLong()).isEqualTo(i);
                assertThat(ack.get("epoch").asText()).isNotEmpty();
            }
            byte[] json = "{\"score\":[1,0],\"text\":\"caf\u00e9\"}".getBytes(StandardCharsets.UTF_8);
            byte[] text = "plain \"text\" caf\u00e9".getBytes(StandardCharsets.UTF_8);

            List<ConsumerRecord<byte[], byte[]>> records = records(topic);
            assertThat(records).hasSize(4);
            assertThat(records).allSatisfy(r -> assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("a"));
            assertThat(records.get(0).value()).isEqualTo(json);
            assertThat(records.get(1).value()).isEqualTo(text);
            assertThat(records.get(2).value()).isEqualTo(binary);
            assertThat(records.get(3).value()).isNull();
            assertThat(records).allSatisfy(r -> assertThat(r.headers().toArray()).isEmpty());

            JsonNode read = PythonClients.run("kafka_readback.py", Duration.ofSeconds(90), Map.of(),
                    "--bootstrap", cluster.getBootstrapServers(), "--topic", topic, "--count", "4").ok().get("records");
            assertThat(read).hasSize(4);
            Base64.Encoder b64 = Base64.getEncoder();
            assertThat(read.get(0).get("value").asText()).isEqualTo(b64.encodeToString(json));
            assertThat(read.get(1).get("value").asText()).isEqualTo(b64.encodeToString(text));
            assertThat(read.get(2).get("value").asText()).isEqualTo(b64.encodeToString(binary));
            assertThat(read.get(3).get("value").isNull()).isTrue();
            read.forEach(r -> assertThat(r.get("key").asText()).isEqualTo("a"));
            assertThat(bridge.metric("sluice_bridge_publish_total", "result=\"ok\"")).isEqualTo(4);
            assertThat(bridge.metric("sluice_bridge_http_requests_total", "status=\"200\"")).isEqualTo(4);
        }
    }

    @Test
    void aBodyAnnouncedLargerThanTheLimitIs413BeforeItIsReadAndTheConnectionEndsWithNothingPublished() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "");
             RawHttp raw = new RawHttp(bridge.port())) {
            raw.send(RawHttp.request("POST", "/ws/publish?endpoint=/" + topic + "/a", Map.of(
                    "Authorization", "Bearer " + writer(topic), "Content-Type", "text/plain",
                    "Content-Length", Integer.toString(MAX_BODY * 100)), null));
            raw.send("x".repeat(MAX_BODY));

            RawHttp.Response response = raw.read();
            assertThat(response.status()).isEqualTo(413);
            assertThat(response.header("connection")).isEqualTo("close");
            assertThat(JSON.readTree(response.body()).get("type").asText()).isEqualTo("error");
            assertThat(raw.closedWithin(Duration.ofSeconds(10))).as("closed after the 413").isTrue();
            assertThat(records(topic)).isEmpty();
            assertThat(bridge.metric("sluice_bridge_http_requests_total", "status=\"413\"")).isEqualTo(1);
        }
    }

    @Test
    void aChunkedBodyThatGrowsPastTheLimitIs413AndNothingIsPublished() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "");
             RawHttp raw = new RawHttp(bridge.port())) {
            raw.send(RawHttp.request("POST", "/ws/publish?endpoint=/" + topic + "/a", Map.of(
                    "Authorization", "Bearer " + writer(topic), "Content-Type", "text/plain",
                    "Transfer-Encoding", "chunked"), null));
            String chunk = Integer.toHexString(1000) + "\r\n" + "y".repeat(1000) + "\r\n";
            for (int i = 0; i < MAX_BODY / 1000 + 1; i++) {
                raw.send(chunk);
            }
            raw.send("0\r\n\r\n");

            RawHttp.Response response = raw.read();
            assertThat(response.status()).isEqualTo(413);
            assertThat(raw.closedWithin(Duration.ofSeconds(10))).as("closed after the 413").isTrue();
            assertThat(records(topic)).isEmpty();
            assertThat(bridge.metric("sluice_bridge_publish_total", "")).isZero();
        }
    }

    @Test
    void aBodyAtTheLimitIsPublished() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "")) {
            HttpResponse<String> response = post(bridge, "/" + topic + "/a", writer(topic), "text/plain", "z".repeat(MAX_BODY));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(records(topic)).singleElement().satisfies(r -> assertThat(r.value()).hasSize(MAX_BODY));
        }
    }

    @Test
    void pipelinedPublishesOverTheInFlightLimitAre429WithRetryAfterAndAnsweredInOrder() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "requests:\n  publishesInFlight: 1\n");
             RawHttp raw = new RawHttp(bridge.port())) {
            Map<String, String> headers = Map.of("Authorization", "Bearer " + writer(topic), "Content-Type", "text/plain");
            String target = "/ws/publish?endpoint=/" + topic + "/a";
            // One write: both are read before Kafka can answer the first.
            raw.send(RawHttp.request("POST", target, headers, "first") + RawHttp.request("POST", target, headers, "second"));

            RawHttp.Response first = raw.read();
            RawHttp.Response second = raw.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(JSON.readTree(first.body()).get("seq").asLong()).isZero();
            assertThat(second.status()).isEqualTo(429);
            assertThat(second.header("retry-after")).isEqualTo("1");
            assertThat(JSON.readTree(second.body()).get("code").asText()).isEqualTo("busy");

            raw.send(RawHttp.request("POST", target, headers, "third"));
            assertThat(raw.read().status()).as("the connection stays usable").isEqualTo(200);
            assertThat(records(topic)).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly("first", "third");
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"publishes_in_flight\"")).isEqualTo(1);
        }
    }

    @Test
    void refusedPublishesGetTheWebSocketErrorCodesAsHttpStatusesAndWriteNothing() throws Exception {
        String topic = kafka.createTopic(1);
        String formats = "formats:\n  - topics: " + topic + "\n    value: {type: json}\n";
        try (BridgeFixture bridge = bridge(topic, formats)) {
            String a = "/" + topic + "/a";
            HttpResponse<String> malformed = post(bridge, a, writer(topic), "application/json", "{\"a\": 1,");
            assertThat(malformed.statusCode()).isEqualTo(400);
            assertThat(error(malformed)).isEqualTo("invalid_payload");
            HttpResponse<String> twoValues = post(bridge, a, writer(topic), "application/json", "[1] [2]");
            assertThat(twoValues.statusCode()).isEqualTo(400);
            assertThat(error(twoValues)).isEqualTo("invalid_payload");

            HttpResponse<String> unknown = post(bridge, "/nosuchtopic/a", writer(topic), "application/json", "{}");
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(error(unknown)).isEqualTo("unknown_endpoint");

            HttpResponse<String> forbidden = post(bridge, "/" + topic + "/b", writer(topic), "application/json", "{}");
            assertThat(forbidden.statusCode()).isEqualTo(403);
            assertThat(error(forbidden)).isEqualTo("forbidden");

            HttpResponse<String> prefix = post(bridge, "/" + topic + "/*", writer(topic), "application/json", "{}");
            assertThat(prefix.statusCode()).isEqualTo(400);

            HttpResponse<String> html = post(bridge, a, writer(topic), "text/html", "<p>");
            assertThat(html.statusCode()).isEqualTo(415);

            HttpResponse<String> noToken = post(bridge, a, null, "application/json", "{}");
            assertThat(noToken.statusCode()).isEqualTo(401);
            assertThat(noToken.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");

            HttpResponse<String> badToken = post(bridge, a, "not a token", "application/json", "{}");
            assertThat(badToken.statusCode()).isEqualTo(401);
            assertThat(error(badToken)).isEqualTo("invalid_token");

            String secret = writer(topic);
            HttpResponse<String> inQuery = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.port()
                    + "/ws/publish?endpoint=" + a + "&access_token=" + java.net.URLEncoder.encode(secret, StandardCharsets.UTF_8)))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(inQuery.statusCode()).isEqualTo(400);
            assertThat(error(inQuery)).isEqualTo("malformed");
            assertThat(inQuery.body()).doesNotContain(secret).doesNotContain("sub=alice");

            HttpResponse<String> get = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.port()
                    + "/ws/publish?endpoint=" + a)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.headers().firstValue("Allow")).hasValue("POST, OPTIONS");

            assertThat(records(topic)).isEmpty();
            HttpResponse<String> fine = post(bridge, a, writer(topic), "application/json", "{\"a\": 1}");
            assertThat(fine.statusCode()).isEqualTo(200);
            assertThat(records(topic)).hasSize(1);
        }
    }

    private static String error(HttpResponse<String> response) throws IOException {
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("type").asText()).isEqualTo("error");
        return body.get("code").asText();
    }

    @Test
    void aKeepAliveConnectionPublishingOutlivesTheHandshakeTimeoutAndIsClosedOnceIdleThatLong() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "connections:\n  handshakeTimeout: 2s\n");
             RawHttp raw = new RawHttp(bridge.port())) {
            Map<String, String> headers = Map.of("Authorization", "Bearer " + writer(topic), "Content-Type", "text/plain");
            long started = System.nanoTime();
            int answered = 0;
            // Requests for twice the timeout, never idle for as long as it.
            while (System.nanoTime() - started < TimeUnit.SECONDS.toNanos(4)) {
                raw.send(RawHttp.request("POST", "/ws/publish?endpoint=/" + topic + "/a", headers, "m" + answered));
                assertThat(raw.read().status()).isEqualTo(200);
                answered++;
                Thread.sleep(500);
            }
            assertThat(answered).isGreaterThanOrEqualTo(6);
            assertThat(raw.closedWithin(Duration.ofSeconds(10))).as("closed once idle for the timeout").isTrue();
            assertThat(bridge.metric("sluice_bridge_handshake_timeouts_total", "")).isEqualTo(1);
        }
    }
}
