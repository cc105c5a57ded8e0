package io.sluice.proxy.server;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.api.TerminationStyle;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.TcpRelay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A broker that goes away and comes back; a broker that is not there at all. */
@ExtendWith(KafkaClusterExtension.class)
class BrokerOutageTest {

    @Test
    void clientsRecoverThroughTheProxyWhenTheBrokerRestarts(KafkaCluster cluster) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers())) {
            String topic = "restart-" + UUID.randomUUID();
            io.sluice.testkit.Topics.createTopics(proxy.clientConfig(), List.of(new NewTopic(topic, 1, (short) 1)));
            Map<String, Object> config = new HashMap<>(proxy.clientConfig());
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
            config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "k", "before")).get();
                cluster.stopNodes(n -> true, TerminationStyle.GRACEFUL);
                // send() may block while it waits for metadata, so the broker comes back from another thread.
                var restart = java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    cluster.startNodes(n -> true);
                });
                var during = producer.send(new ProducerRecord<>(topic, "k", "during"));
                restart.get();
                assertThat(during.get().offset()).isEqualTo(1);
                assertThat(producer.send(new ProducerRecord<>(topic, "k", "after")).get().offset()).isEqualTo(2);
            }
        }
    }

    @Test
    void readinessFailsWhileTheBrokerIsDownAndReturnsWhenItIsBack(KafkaCluster cluster) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> readyz(proxy).statusCode() == 200);
            assertThat(readyz(proxy).body()).contains("answered DescribeCluster");

            cluster.stopNodes(n -> true, TerminationStyle.ABRUPT);
            // UpstreamCheck.MAX_AGE (15 s) at most, with room for a slow machine; the wait ends as soon as it fails.
            await().atMost(Duration.ofSeconds(40)).until(() -> readyz(proxy).statusCode() == 503);
            HttpResponse<String> down = readyz(proxy);
            assertThat(down.body()).contains("\"failing\":[\"virtualCluster:demo:upstream\"]");
            assertThat(healthz(proxy)).as("liveness does not depend on the brokers").isEqualTo(200);

            cluster.startNodes(n -> true);
            await().atMost(Duration.ofSeconds(60)).until(() -> readyz(proxy).statusCode() == 200);
            assertThat(healthz(proxy)).isEqualTo(200);
        }
    }

    @Test
    void withoutDiscoveryReadinessFollowsWhetherABootstrapServerAcceptsConnections(KafkaCluster cluster) throws Exception {
        String[] broker = cluster.getBootstrapServers().split(",")[0].split(":");
        try (TcpRelay relay = new TcpRelay(broker[0], Integer.parseInt(broker[1]));
             ProxyFixture proxy = ProxyFixture.start("127.0.0.1:" + relay.port(), "discovery: false", "")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> readyz(proxy).statusCode() == 200);

            relay.stop();
            await().atMost(Duration.ofSeconds(40)).until(() -> readyz(proxy).statusCode() == 503);
            assertThat(readyz(proxy).body()).contains("no bootstrap server accepts connections");

            relay.start();
            await().atMost(Duration.ofSeconds(40)).until(() -> readyz(proxy).statusCode() == 200);
        }
    }

    private static HttpResponse<String> readyz(ProxyFixture proxy) throws Exception {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.server().managementPort() + "/readyz")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int healthz(ProxyFixture proxy) throws Exception {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.server().managementPort() + "/healthz")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void unreachableBrokerClosesClientConnectionsAndFailsReadiness() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        Logger discoveryLog = (Logger) LoggerFactory.getLogger(ClusterDiscovery.class);
        ListAppender<ILoggingEvent> discovery = new ListAppender<>();
        discovery.start();
        discoveryLog.addAppender(discovery);
        try (ProxyFixture proxy = ProxyFixture.start("127.0.0.1:" + deadPort)) {
            Map<String, Object> config = new HashMap<>(proxy.clientConfig());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
            try (Admin admin = Admin.create(config)) {
                assertThatThrownBy(() -> admin.describeCluster().nodes().get()).isInstanceOf(ExecutionException.class);
            }
            assertThat(proxy.metric("sluice_upstream_connect_failures_total", "virtual_cluster=\"demo\"")).isGreaterThan(0);
            HttpResponse<String> ready = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.server().managementPort() + "/readyz")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("upstream");
            await().atMost(Duration.ofSeconds(30)).until(() -> discovery.list.stream().anyMatch(e -> e.getFormattedMessage().contains("cannot discover")));
        } finally {
            discoveryLog.detachAppender(discovery);
        }
        // Stopping interrupts the discovery round that waits for the absent cluster: that is no failure to report.
        assertThat(discovery.list).extracting(ILoggingEvent::getFormattedMessage).as("discovery's lines")
                .hasSize(1).noneMatch(line -> line.contains("Interrupted"));
    }

    @Test
    void aClientReconnectingThroughAnOutageLogsABoundedNumberOfLinesWithTheCauseUnwrapped() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        Logger logger = (Logger) LoggerFactory.getLogger(ProxyConnection.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (ProxyFixture proxy = ProxyFixture.start("127.0.0.1:" + deadPort)) {
            Map<String, Object> config = new HashMap<>(proxy.clientConfig());
            // Reconnects as fast as a client allows: each attempt is a client connection the proxy has to close.
            config.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 10);
            config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 20);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000);
            Admin admin = Admin.create(config);
            try {
                admin.describeCluster();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> proxy.metric("sluice_upstream_connect_failures_total", "virtual_cluster=\"demo\"") >= 20);
            } finally {
                admin.close(Duration.ZERO);
            }
        } finally {
            logger.detachAppender(appender);
        }
        List<String> warnings = appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
        // 20 and more closes; the first line is logged at once, the next not within RateLimitedLog.DEFAULT_INTERVAL.
        assertThat(warnings).hasSizeBetween(1, 2);
        assertThat(warnings.get(0)).contains("virtual cluster demo: closing client connection", "cannot reach the broker: cannot connect to broker 127.0.0.1:" + deadPort)
                .doesNotContain("CompletionException").doesNotContain("Exception:");
    }
}
