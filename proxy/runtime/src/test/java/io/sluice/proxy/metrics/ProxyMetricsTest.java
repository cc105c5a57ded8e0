package io.sluice.proxy.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ProxyMetricsTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ProxyMetrics metrics = new ProxyMetrics(registry);

    @Test
    void connectionGaugeFollowsOpensAndClosesWhileCounterOnlyGrows() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.connectionOpened();
        vc.connectionOpened();
        vc.connectionOpened();
        vc.connectionClosed();

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("sluice_client_connections{node_id=\"1\",virtual_cluster=\"demo\"} 2.0")
                .contains("sluice_client_connections_opened_total{node_id=\"1\",virtual_cluster=\"demo\"} 3.0");
    }

    @Test
    void rejectionsAreCountedPerReason() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.connectionRejected("frame_too_large");
        vc.connectionRejected("frame_too_large");
        vc.connectionRejected("malformed");

        assertThat(registry.scrape())
                .contains("sluice_client_connections_rejected_total{node_id=\"1\",reason=\"frame_too_large\",virtual_cluster=\"demo\"} 2.0")
                .contains("sluice_client_connections_rejected_total{node_id=\"1\",reason=\"malformed\",virtual_cluster=\"demo\"} 1.0");
    }

    @Test
    void rejectionReasonsAreCappedSoALabelCannotGrowWithoutBound() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        for (int i = 0; i < 1000; i++) {
            vc.connectionRejected("reason-" + i);
        }

        long series = registry.getMeters().stream()
                .filter(m -> m.getId().getName().equals("sluice.client.connections.rejected"))
                .count();
        assertThat(series).isLessThanOrEqualTo(33);
        assertThat(registry.scrape()).contains("sluice_client_connections_rejected_total{node_id=\"1\",reason=\"other\",virtual_cluster=\"demo\"}");
        double total = registry.find("sluice.client.connections.rejected").counters().stream()
                .mapToDouble(c -> c.count()).sum();
        assertThat(total).isEqualTo(1000.0);
    }

    @Test
    void bytesAreCountedPerDirection() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.bytesFromClient(100);
        vc.bytesToBroker(110);
        vc.bytesFromBroker(2000);
        vc.bytesToClient(1990);
        vc.bytesFromClient(1);

        assertThat(registry.scrape())
                .contains("sluice_bytes_total{direction=\"from_client\",node_id=\"1\",virtual_cluster=\"demo\"} 101.0")
                .contains("sluice_bytes_total{direction=\"to_broker\",node_id=\"1\",virtual_cluster=\"demo\"} 110.0")
                .contains("sluice_bytes_total{direction=\"from_broker\",node_id=\"1\",virtual_cluster=\"demo\"} 2000.0")
                .contains("sluice_bytes_total{direction=\"to_client\",node_id=\"1\",virtual_cluster=\"demo\"} 1990.0");
    }

    @Test
    void requestsAreCountedAndTimedPerApiKeyWithFixedBuckets() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.requestCompleted(ApiKeys.PRODUCE.id, TimeUnit.MICROSECONDS.toNanos(80));
        vc.requestCompleted(ApiKeys.PRODUCE.id, TimeUnit.MILLISECONDS.toNanos(3));
        vc.requestCompleted(ApiKeys.FETCH.id, TimeUnit.MILLISECONDS.toNanos(500));

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("sluice_requests_total{api_key=\"PRODUCE\",node_id=\"1\",virtual_cluster=\"demo\"} 2.0")
                .contains("sluice_requests_total{api_key=\"FETCH\",node_id=\"1\",virtual_cluster=\"demo\"} 1.0")
                .contains("# TYPE sluice_request_latency_seconds histogram")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"PRODUCE\",node_id=\"1\",virtual_cluster=\"demo\",le=\"5.0E-5\"} 0")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"PRODUCE\",node_id=\"1\",virtual_cluster=\"demo\",le=\"1.0E-4\"} 1")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"PRODUCE\",node_id=\"1\",virtual_cluster=\"demo\",le=\"0.005\"} 2")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"FETCH\",node_id=\"1\",virtual_cluster=\"demo\",le=\"0.25\"} 0")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"FETCH\",node_id=\"1\",virtual_cluster=\"demo\",le=\"0.5\"} 1")
                .contains("sluice_request_latency_seconds_bucket{api_key=\"FETCH\",node_id=\"1\",virtual_cluster=\"demo\",le=\"10.0\"} 1")
                .contains("sluice_request_latency_seconds_count{api_key=\"FETCH\",node_id=\"1\",virtual_cluster=\"demo\"} 1")
                // Series appear only for APIs that were called.
                .doesNotContain("api_key=\"METADATA\"");
    }

    @Test
    void apiKeysOutsideTheKnownRangeShareOneUnknownSeries() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.requestCompleted((short) -1, 1_000);
        vc.requestCompleted(Short.MAX_VALUE, 1_000);
        vc.requestCompleted((short) 9999, 1_000);

        assertThat(registry.scrape())
                .contains("sluice_requests_total{api_key=\"UNKNOWN\",node_id=\"1\",virtual_cluster=\"demo\"} 3.0");
    }

    @Test
    void everyKnownApiKeyGetsItsEnumName() {
        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        VirtualClusterMetrics vc = new ProxyMetrics(simple).forNode("vc", "1");
        for (ApiKeys key : ApiKeys.values()) {
            vc.requestCompleted(key.id, 1_000);
        }
        for (ApiKeys key : ApiKeys.values()) {
            assertThat(simple.get("sluice.requests").tag("api_key", key.name()).functionCounter().count())
                    .as(key.name())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void filterErrorsAndUpstreamFailuresAreCounted() {
        VirtualClusterMetrics vc = metrics.forNode("demo", "1");
        vc.filterError("topic-rename");
        vc.filterError("topic-rename");
        vc.upstreamConnectFailed();

        assertThat(registry.scrape())
                .contains("sluice_filter_errors_total{filter=\"topic-rename\",node_id=\"1\",virtual_cluster=\"demo\"} 2.0")
                .contains("sluice_upstream_connect_failures_total{node_id=\"1\",virtual_cluster=\"demo\"} 1.0");
    }

    @Test
    void virtualClustersAreSeparateSeries() {
        metrics.forNode("a", "1").connectionOpened();
        metrics.forNode("b", "1").upstreamConnectFailed();

        assertThat(registry.scrape())
                .contains("sluice_client_connections{node_id=\"1\",virtual_cluster=\"a\"} 1.0")
                .contains("sluice_client_connections{node_id=\"1\",virtual_cluster=\"b\"} 0.0")
                .contains("sluice_upstream_connect_failures_total{node_id=\"1\",virtual_cluster=\"a\"} 0.0")
                .contains("sluice_upstream_connect_failures_total{node_id=\"1\",virtual_cluster=\"b\"} 1.0");
    }

    @Test
    void everyPortsMetersCarryItsNodeId() {
        metrics.forNode("demo", ProxyMetrics.BOOTSTRAP_NODE).connectionOpened();
        metrics.forNode("demo", "2").connectionOpened();
        metrics.forNode("demo", "2").bytesToBroker(7);
        metrics.forNode("demo", "2").requestCompleted(ApiKeys.FETCH.id, 1_000);
        metrics.forNode("demo", "2").connectionRefused("max_connections");

        assertThat(registry.scrape())
                .contains("sluice_client_connections{node_id=\"bootstrap\",virtual_cluster=\"demo\"} 1.0")
                .contains("sluice_client_connections{node_id=\"2\",virtual_cluster=\"demo\"} 1.0")
                .contains("sluice_bytes_total{direction=\"to_broker\",node_id=\"2\",virtual_cluster=\"demo\"} 7.0")
                .contains("sluice_bytes_total{direction=\"to_broker\",node_id=\"bootstrap\",virtual_cluster=\"demo\"} 0.0")
                .contains("sluice_requests_total{api_key=\"FETCH\",node_id=\"2\",virtual_cluster=\"demo\"} 1.0")
                .contains("sluice_client_connections_refused_total{node_id=\"2\",reason=\"max_connections\",virtual_cluster=\"demo\"} 1.0");
    }

    @Test
    void forNodeReturnsOneInstancePerPortUnderContention() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<VirtualClusterMetrics>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    VirtualClusterMetrics vc = metrics.forNode("shared", "1");
                    for (int n = 0; n < 1000; n++) {
                        vc.requestCompleted(ApiKeys.METADATA.id, 10_000);
                    }
                    return vc;
                }));
            }
            go.countDown();
            Set<VirtualClusterMetrics> distinct = ConcurrentHashMap.newKeySet();
            for (Future<VirtualClusterMetrics> f : results) {
                distinct.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(distinct).hasSize(1);
            assertThat(registry.scrape())
                    .contains("sluice_requests_total{api_key=\"METADATA\",node_id=\"1\",virtual_cluster=\"shared\"} 8000.0");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void registryIsTheOneGiven() {
        assertThat(metrics.registry()).isSameAs(registry);
    }
}
