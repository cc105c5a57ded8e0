package io.sluice.proxy.server;

import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.build.BuildInfo;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What SIGTERM does (the shutdown hook calls {@link ProxyServer#close}): readiness fails, the ports stop accepting,
 * requests already sent are answered, and only then, or when network.shutdownTimeout runs out, connections close.
 */
@ExtendWith(KafkaClusterExtension.class)
class GracefulShutdownTest {

    private static final short FETCH_VERSION = 12;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aFetchInFlightIsAnsweredWhileReadinessFailsAndNewConnectionsAreRefused(KafkaCluster cluster) throws Exception {
        String topic = Topics.createTopic(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), "shutdown-" + UUID.randomUUID(), 1);
        ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", "network:\n  shutdownTimeout: 20s");
        CompletableFuture<Void> closing = null;
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> get(proxy, "/readyz").statusCode() == 200);
            BuildInfo build = BuildInfo.current();
            assertThat(get(proxy, "/metrics").body())
                    .contains("sluice_build_info{commit=\"" + build.commit() + "\",version=\"" + build.version() + "\"} 1");
            sendHeldFetch(proxy, wire, topic, 3_000);
            long start = System.nanoTime();
            closing = CompletableFuture.runAsync(proxy::close);

            await().atMost(Duration.ofSeconds(2)).until(() -> get(proxy, "/readyz").statusCode() == 503);
            assertThat(get(proxy, "/readyz").body()).contains("\"shutdown\":{\"ready\":false,\"detail\":\"shutting down\"}");
            assertThatThrownBy(() -> new Socket("127.0.0.1", proxy.bootstrapPort()).close()).isInstanceOf(ConnectException.class);
            assertThat(closing).isNotDone();

            FetchResponseData response = wire.receive(ApiKeys.FETCH, FETCH_VERSION);
            assertThat(response.errorCode()).isZero();
            assertThat(response.responses().get(0).partitions().get(0).errorCode()).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(2_000));
            assertThat(wire.closedByPeer()).as("closed once every request was answered").isTrue();
            closing.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        } finally {
            if (closing == null) {
                proxy.close();
            }
        }
    }

    @Test
    void whatIsStillUnansweredAfterTheShutdownTimeoutIsCut(KafkaCluster cluster) throws Exception {
        String topic = Topics.createTopic(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), "shutdown-" + UUID.randomUUID(), 1);
        ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", "network:\n  shutdownTimeout: 1s");
        boolean closed = false;
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            sendHeldFetch(proxy, wire, topic, 30_000);

            long start = System.nanoTime();
            proxy.close();
            closed = true;

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(6));
            assertThat(wire.closedByPeer()).as("closed without the response").isTrue();
        } finally {
            if (!closed) {
                proxy.close();
            }
        }
    }

    @Test
    void aGracefulShutdownWithAnIdleConsumerAttachedLogsNoWarning(KafkaCluster cluster) throws Exception {
        String topic = Topics.createTopic(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), "shutdown-" + UUID.randomUUID(), 1);
        Logger logger = (Logger) LoggerFactory.getLogger(ProxyServer.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", "network:\n  shutdownTimeout: 15s");
        boolean closed = false;
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "idle-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            consumer.subscribe(List.of(topic));
            // Joined, assigned, fetching: its connections (bootstrap, coordinator, leader) are open and idle.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(100));
                return !consumer.assignment().isEmpty();
            });
            assertThat(proxy.metric("sluice_client_connections", "virtual_cluster=\"demo\"")).isGreaterThan(0);

            proxy.close();
            closed = true;

            assertThat(appender.list).filteredOn(e -> e.getLevel() == Level.WARN || e.getLevel() == Level.ERROR).isEmpty();
            assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(m -> m.startsWith("Shutting down: ") && m.contains("client connection(s) finish"));
        } finally {
            logger.detachAppender(appender);
            consumer.close(Duration.ZERO);
            if (!closed) {
                proxy.close();
            }
        }
    }

    /**
     * Sends a Fetch on an empty partition, which the broker holds for its whole max wait, and returns once the proxy
     * has forwarded it.
     */
    private static void sendHeldFetch(ProxyFixture proxy, KafkaWire wire, String topic, int maxWaitMs) throws Exception {
        awaitLeader(wire, topic);
        double fetches = proxy.metric("sluice_requests_total", "api_key=\"FETCH\"");
        double toBroker = proxy.metric("sluice_bytes_total", "direction=\"to_broker\"");
        wire.send(ApiKeys.FETCH, FETCH_VERSION, fetch(topic, maxWaitMs));
        awaitForwarded(proxy, fetches, toBroker);
    }

    /** Until the new partition's leader serves fetches (an immediate error answer would not test waiting). */
    private static void awaitLeader(KafkaWire wire, String topic) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            FetchResponseData response = wire.call(ApiKeys.FETCH, FETCH_VERSION, fetch(topic, 0));
            return response.errorCode() == 0 && response.responses().get(0).partitions().get(0).errorCode() == 0;
        });
    }

    /** The broker has the Fetch: the proxy forwarded its bytes, and has not answered it. */
    private static void awaitForwarded(ProxyFixture proxy, double fetchesAnswered, double toBroker) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> proxy.metric("sluice_bytes_total", "direction=\"to_broker\"") > toBroker);
        assertThat(proxy.metric("sluice_requests_total", "api_key=\"FETCH\"")).as("the Fetch is still in flight").isEqualTo(fetchesAnswered);
    }

    private HttpResponse<String> get(ProxyFixture proxy, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.server().managementPort() + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static FetchRequestData fetch(String topic, int maxWaitMs) {
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setSessionId(0).setSessionEpoch(-1);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
        return fetch;
    }

}
