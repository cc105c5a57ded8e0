package io.sluice.app.demo;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.client.HeadlessBrowser;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's bridge part against real Kafka (standing in for the demo proxy, which passes everything through): it
 * serves its pages and a token, live scores arrive over a real WebSocket, and in Chromium the recovery page recovers
 * a disconnect with no gap.
 */
@ExtendWith(KafkaClusterExtension.class)
class BridgeDemoTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheLivePageAndTokensAndLiveScoresArriveOverWebSocket() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        BridgeDemo part = new BridgeDemo("127.0.0.1:0");
        try {
            part.show(new DemoPart.Demo(cluster.getBootstrapServers(), cluster.getBootstrapServers()), new PrintStream(printed, true, StandardCharsets.UTF_8));
            int port = part.port();
            assertThat(printed.toString(StandardCharsets.UTF_8)).contains("http://127.0.0.1:" + port + "/", "recovery.html", "demo only");

            HttpResponse<String> page = get(port, "/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("Live scores from Kafka", "/scores/*");
            assertThat(get(port, "/recovery.html").statusCode()).isEqualTo(200);
            assertThat(get(port, "/sluice-bridge.js").body()).contains("export class SluiceBridge");
            assertThat(get(port, "/nope.html").statusCode()).isEqualTo(404);
            String token = JSON.readTree(get(port, "/demo-token.json").body()).get("token").asText();

            BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
            WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), new WebSocket.Listener() {
                private final StringBuilder text = new StringBuilder();

                @Override
                public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                    text.append(data);
                    if (last) {
                        try {
                            received.add(JSON.readTree(text.toString()));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        text.setLength(0);
                    }
                    socket.request(1);
                    return null;
                }
            }).get(10, TimeUnit.SECONDS);
            ws.sendText("{\"type\":\"connect\",\"id\":1,\"token\":\"" + token + "\"}", true).get();
            assertThat(next(received).get("type").asText()).isEqualTo("connected");
            ws.sendText("{\"type\":\"subscribe\",\"id\":2,\"endpoint\":\"/scores/live/*\"}", true).get();
            assertThat(next(received).get("type").asText()).isEqualTo("subscribed");
            JsonNode message = next(received);
            assertThat(message.get("type").asText()).isEqualTo("message");
            assertThat(message.get("endpoint").asText()).startsWith("/scores/live/");
            assertThat(message.get("payload").get("matches").isArray()).isTrue();
            ws.abort();
        } finally {
            part.close();
        }
    }

    private static JsonNode next(BlockingQueue<JsonNode> received) throws InterruptedException {
        JsonNode m = received.poll(30, TimeUnit.SECONDS);
        assertThat(m).as("a message within 30 s").isNotNull();
        return m;
    }

    @Test
    void theRecoveryPageRecoversADisconnectWithNoGapInChromium() throws Exception {
        try (HeadlessBrowser browser = HeadlessBrowser.launch()) {
            BridgeDemo part = new BridgeDemo("127.0.0.1:0");
            try {
                part.show(new DemoPart.Demo(cluster.getBootstrapServers(), cluster.getBootstrapServers()), new PrintStream(new ByteArrayOutputStream()));
                browser.open("http://127.0.0.1:" + part.port() + "/recovery.html", "document.body.dataset.received !== undefined");
                waitUntil(browser, "Number(document.body.dataset.received || 0) >= 3");
                browser.eval("document.getElementById('disconnect').click()");
                int before = browser.eval("Number(document.body.dataset.received)").asInt();
                // Scores keep changing while the page is away; wait (in the page) until the producer made a few.
                browser.eval("new Promise(r => setTimeout(r, 2500))");
                assertThat(browser.eval("Number(document.body.dataset.received)").asInt()).isEqualTo(before);
                browser.eval("document.getElementById('reconnect').click()");
                waitUntil(browser, "Number(document.body.dataset.recovered || 0) >= 1");
                waitUntil(browser, "Number(document.body.dataset.received) >= " + (before + 5));
                assertThat(browser.eval("Number(document.body.dataset.problems)").asInt()).isZero();
                assertThat(browser.eval("document.querySelectorAll('tr.recovered').length").asInt()).isPositive();
            } finally {
                part.close();
            }
        }
    }

    private static void waitUntil(HeadlessBrowser browser, String condition) throws Exception {
        String wait = "(async () => { const end = Date.now() + 30000; while (!(" + condition + ") && Date.now() < end) "
                + "{ await new Promise(r => setTimeout(r, 50)); } return " + condition + "; })()";
        assertThat(browser.eval(wait).asBoolean()).as(condition).isTrue();
    }
}
