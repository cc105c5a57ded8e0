package io.sluice.bridge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.sluice.format.registry.RegistryStandIn;

/** {@code GET /asyncapi.json} and {@code /catalogue} on the WebSocket port: served when enabled, 404 when not. */
@ExtendWith(KafkaClusterExtension.class)
class CatalogueHttpTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> get(BridgeFixture bridge, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.port() + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDocumentAndPageAreServedWhenEnabledEvenWithTheRegistryDown() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("""
                topics: %s
                catalogue: {enabled: true}
                schemaRegistry: {url: "http://127.0.0.1:1", timeout: 1s}
                formats:
                  - topics: %s
                    value: {type: avro}
                """.formatted(topic, topic))) {
            HttpResponse<String> response = get(bridge, "/asyncapi.json");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
            JsonNode doc = new ObjectMapper().readTree(response.body());
            assertThat(doc.get("asyncapi").asText()).isEqualTo("3.0.0");
            assertThat(doc.at("/servers/bridge/host").asText()).isEqualTo("127.0.0.1:" + bridge.port());
            assertThat(doc.at("/components/schemas/" + topic + ".value/description").asText())
                    .startsWith("Schema unavailable");

            HttpResponse<String> page = get(bridge, "/catalogue");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(page.body()).contains("/catalogue.js");
            assertThat(get(bridge, "/catalogue.js").body()).contains("from '/sluice-bridge.js'");
            assertThat(get(bridge, "/sluice-bridge.js").statusCode()).isEqualTo(200);
        }
    }

    /**
     * The document is served before any token: with the registry refusing connections, or answering with a certificate
     * the node does not trust, it says the schema is unavailable and nothing of why (no address, port, URL or TLS
     * reason); the node's log has the details.
     */
    @Test
    void aRegistryDownOrWithABadCertificateLeaksNothingIntoTheDocument() throws Exception {
        X509Bundle untrusted = new CertificateBuilder().subject("CN=registry.internal").addSanIpAddress("127.0.0.1")
                .setIsCertificateAuthority(true).addExtendedKeyUsageServerAuth().ecp256().buildSelfSigned();
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(untrusted.toKeyManagerFactory().getKeyManagers(), null, null);
        try (RegistryStandIn tls = RegistryStandIn.startHttps(context)) {
            String refusing = "http://127.0.0.1:1";
            for (String url : List.of(refusing, tls.url())) {
                String topic = kafka.createTopic(1);
                try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("""
                        topics: %s
                        catalogue: {enabled: true}
                        schemaRegistry: {url: "%s", timeout: 2s}
                        formats:
                          - topics: %s
                            value: {type: avro}
                        """.formatted(topic, url, topic))) {
                    String pointer = "/components/schemas/" + topic + ".value/description";
                    String description = "";
                    String body = "";
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    // The first build asks nothing of the registry; the refresh that did is the one that can leak.
                    while (System.nanoTime() < deadline && (description.isEmpty() || description.contains("not been fetched"))) {
                        HttpResponse<String> response = get(bridge, "/asyncapi.json");
                        assertThat(response.statusCode()).isEqualTo(200);
                        body = response.body();
                        description = new ObjectMapper().readTree(body).at(pointer).asText();
                    }
                    assertThat(description).as(url).startsWith("Schema unavailable").doesNotContain("not been fetched");
                    // (Its own servers section names the bridge's 127.0.0.1:port, without a scheme.)
                    assertThat(body).as(url).doesNotContain(url, "https://", "http://", "registry at", "TLS", "PKIX", "certificate",
                            "cannot connect", "SSL", "handshake");
                }
            }
        }
    }

    @Test
    void nothingIsServedWhenDisabled() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("topics: " + topic)) {
            assertThat(get(bridge, "/asyncapi.json").statusCode()).isEqualTo(404);
            assertThat(get(bridge, "/catalogue").statusCode()).isEqualTo(404);
        }
    }
}
