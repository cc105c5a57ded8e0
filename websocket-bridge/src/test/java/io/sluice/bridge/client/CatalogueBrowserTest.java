package io.sluice.bridge.client;

import java.time.Duration;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The catalogue page (/catalogue, docs/bridge-asyncapi.md) in headless Chromium against a real bridge and Kafka: it
 * lists the endpoints from /asyncapi.json, a pasted token's probes say which it may subscribe to, and the "try it" box
 * shows a record produced to Kafka.
 */
@ExtendWith(KafkaClusterExtension.class)
class CatalogueBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @Test
    void aTokenSeesWhatItMaySubscribeToAndTryItShowsLiveMessages() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String open = kafka.createTopic(1);
            String closed = kafka.createTopic(1);
            try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-catalogue")
                    .start("topics: " + open + "," + closed + "\ncatalogue: {enabled: true}\n");
                 HeadlessBrowser browser = HeadlessBrowser.launch()) {
                browser.open("http://127.0.0.1:" + bridge.port() + "/catalogue", "document.body.dataset.loaded === 'true'");
                assertThat(browser.eval("[...document.querySelectorAll('#endpoints tr')].map(r => r.dataset.endpoint).sort()"))
                        .isEqualTo(JSON.valueToTree(java.util.stream.Stream.of("/" + open + "/*", "/" + closed + "/*").sorted().toList()));

                String token = TestAuthenticator.token("visitor", open + "/*", "");
                browser.eval("(() => { document.getElementById('token').value = " + JSON.writeValueAsString(token)
                        + "; document.getElementById('connect').click(); return true; })()");
                await().atMost(Duration.ofSeconds(30)).until(() -> browser.eval("document.getElementById('status').textContent").asText().endsWith("probed"));
                assertThat(browser.eval("document.querySelector('tr[data-endpoint=\"/" + open + "/*\"] .access').textContent").asText())
                        .isEqualTo("may subscribe");
                assertThat(browser.eval("document.querySelector('tr[data-endpoint=\"/" + closed + "/*\"] .access').textContent").asText())
                        .startsWith("forbidden");

                browser.eval("(() => { document.getElementById('endpoint').value = '/" + open + "/*';"
                        + " document.getElementById('subscribe').click(); return true; })()");
                await().atMost(Duration.ofSeconds(30)).until(() -> browser.eval("document.getElementById('messages').textContent").asText().contains("subscribed"));
                kafka.send(open, "k", "{\"hello\":\"catalogue\"}");
                await().atMost(Duration.ofSeconds(30)).until(() -> browser.eval("document.getElementById('messages').textContent").asText()
                        .contains("/" + open + "/k seq 0: {\"hello\":\"catalogue\"}"));
            }
        }
    }
}
