package io.sluice.management;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.management.ManagementServer.Readiness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ManagementServerTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicBoolean live = new AtomicBoolean(true);
    private final Map<String, Supplier<Readiness>> checks = new LinkedHashMap<>();
    private ManagementServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start() throws IOException {
        server = new ManagementServer("127.0.0.1", 0, registry, checks, live::get);
        server.start();
    }

    private HttpResponse<String> send(String method, String path, String accept) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (accept != null) {
            request.header("Accept", accept);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, null);
    }

    @Test
    void metricsServesPrometheusText() throws Exception {
        Counter.builder("sluice.test.events").tag("kind", "a").register(registry).increment(3);
        start();

        HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body()).contains("sluice_test_events_total{kind=\"a\"} 3.0");
    }

    @Test
    void metricsServesOpenMetricsWhenAsked() throws Exception {
        Counter.builder("sluice.test.events").register(registry).increment();
        start();

        HttpResponse<String> response = send("GET", "/metrics",
                "application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow())
                .startsWith("application/openmetrics-text");
        assertThat(response.body()).contains("sluice_test_events_total 1.0").endsWith("# EOF\n");
    }

    @Test
    void healthzFollowsLiveness() throws Exception {
        start();

        HttpResponse<String> alive = get("/healthz");
        assertThat(alive.statusCode()).isEqualTo(200);
        assertThat(alive.body()).isEqualTo("ok\n");

        assertThat(get("/livez").statusCode()).as("the alias").isEqualTo(200);

        live.set(false);
        assertThat(get("/healthz").statusCode()).isEqualTo(503);
        assertThat(get("/livez").statusCode()).isEqualTo(503);
    }

    @Test
    void readyzIs200WithEveryCheckWhenAllPass() throws Exception {
        checks.put("upstream", () -> Readiness.ready("3 brokers"));
        checks.put("listener", () -> Readiness.ready("bound"));
        start();

        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode body = new ObjectMapper().readTree(response.body());
        assertThat(body.get("ready").asBoolean()).isTrue();
        assertThat(body.has("failing")).isFalse();
        assertThat(body.at("/checks/upstream/ready").asBoolean()).isTrue();
        assertThat(body.at("/checks/upstream/detail").asText()).isEqualTo("3 brokers");
        assertThat(body.at("/checks/listener/ready").asBoolean()).isTrue();
    }

    @Test
    void readyzIs503NamingFailingChecksIncludingOnesThatThrow() throws Exception {
        checks.put("listener", () -> Readiness.ready("bound"));
        checks.put("upstream", () -> Readiness.notReady("no broker answered"));
        checks.put("config", () -> {
            throw new IllegalStateException("password=hunter2");
        });
        checks.put("empty", () -> null);
        start();

        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(503);
        JsonNode body = new ObjectMapper().readTree(response.body());
        assertThat(body.get("ready").asBoolean()).isFalse();
        assertThat(body.get("failing")).extracting(JsonNode::asText)
                .containsExactly("config", "empty", "upstream");
        assertThat(body.at("/checks/upstream/detail").asText()).isEqualTo("no broker answered");
        assertThat(response.body()).doesNotContain("hunter2");
    }

    @Test
    void readyzWithNoChecksIsReady() throws Exception {
        start();
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void checksRunOnManagementThreadsNotTheCallersOrDispatcher() throws Exception {
        AtomicReference<String> threadName = new AtomicReference<>();
        checks.put("probe", () -> {
            threadName.set(Thread.currentThread().getName());
            return Readiness.ready("");
        });
        start();

        get("/readyz");

        assertThat(threadName.get()).startsWith("sluice-management-");
    }

    @Test
    void unknownPathIs404AndPrefixesDoNotMatch() throws Exception {
        start();
        assertThat(get("/").statusCode()).isEqualTo(404);
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        assertThat(get("/metricsx").statusCode()).isEqualTo(404);
        assertThat(get("/metrics/x").statusCode()).isEqualTo(404);
    }

    @Test
    void otherMethodsAre405AndHeadIsAllowed() throws Exception {
        start();

        HttpResponse<String> post = send("POST", "/metrics", null);
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertThat(send("DELETE", "/readyz", null).statusCode()).isEqualTo(405);

        HttpResponse<String> head = send("HEAD", "/healthz", null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void portIsTheBoundOneAndClosingFreesIt() throws Exception {
        start();
        int port = server.port();
        assertThat(port).isPositive();
        server.close();

        assertThatThrownBy(() -> client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                        .timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
        server = null;
    }

    @Test
    void startingTwiceIsRejected() throws Exception {
        start();
        assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
    }
}
