package io.sluice.bridge.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.bridge.web.StaticContent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JavaScript client in headless Chromium against a real bridge whose limits refuse some of its subscribes for
 * now (rate_limited, busy): the client backs off and subscribes again, so every subscription becomes ready.
 */
@ExtendWith(KafkaClusterExtension.class)
class BrowserClientRetryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StaticContent PAGES = StaticContent.fromClasspath(StaticContent.CLIENT_JS, "browser-test");

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static HeadlessBrowser browser;
    static KafkaHelper kafka;

    @BeforeAll
    static void start() throws Exception {
        browser = HeadlessBrowser.launch();
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void rateLimitedSubscribesAreRetriedUntilEveryOneIsReady() throws Exception {
        String topic = kafka.createTopic(1);
        String config = "topics: " + topic + "\nrequests:\n  subscribesPerSecond: 4\n  subscribeBurst: 1\n";
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-browser").serving(PAGES).start(config)) {
            browser.open("http://127.0.0.1:" + bridge.port() + "/test.html", "window.harness !== undefined");
            String token = TestAuthenticator.token("alice", topic + "/*", "");
            assertThat(browser.eval("harness.start(" + JSON.writeValueAsString(new String[] {token}) + ")").asText()).isEqualTo("alice");

            String[] endpoints = {"/" + topic + "/a", "/" + topic + "/b", "/" + topic + "/c", "/" + topic + "/d"};
            JsonNode ready = browser.eval("Promise.all(" + JSON.writeValueAsString(endpoints) + ".map((e) => harness.subscribe(e)))");
            assertThat(ready).hasSize(4).allMatch(JsonNode::asBoolean, "subscribed");
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"subscribe_rate\"")).isGreaterThanOrEqualTo(3);

            for (String endpoint : endpoints) {
                kafka.send(topic, endpoint.substring(endpoint.lastIndexOf('/') + 1), "to " + endpoint);
            }
            for (String endpoint : endpoints) {
                JsonNode received = browser.eval("harness.waitFor(" + JSON.writeValueAsString(endpoint) + ", 1)");
                assertThat(received).hasSize(1);
                assertThat(received.get(0).get("payload").asText()).isEqualTo("to " + endpoint);
            }
            assertThat(browser.eval("harness.events.filter((e) => e.event === 'error').length").asInt()).isZero();
        }
    }
}
