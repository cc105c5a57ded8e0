package io.sluice.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ProxyMetricsScrapeTest {

    private static final String EXPOSITION = """
            # HELP jvm_gc_pause_seconds Time spent in GC pause
            # TYPE jvm_gc_pause_seconds summary
            jvm_gc_pause_seconds_count{action="end of minor GC",cause="Allocation Failure",gc="PS Scavenge"} 7
            jvm_gc_pause_seconds_sum{action="end of minor GC",cause="Allocation Failure",gc="PS Scavenge"} 0.021
            jvm_gc_pause_seconds_count{action="end of major GC",cause="Ergonomics",gc="PS MarkSweep"} 1
            jvm_gc_pause_seconds_sum{action="end of major GC",cause="Ergonomics",gc="PS MarkSweep"} 0.1
            jvm_gc_pause_seconds_max{action="end of minor GC",cause="Allocation Failure",gc="PS Scavenge"} 0.004
            jvm_memory_used_bytes{area="heap",id="PS Eden Space"} 1000
            jvm_memory_used_bytes{area="heap",id="PS Old Gen"} 500
            jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 99999
            jvm_memory_used_bytes_other 5
            # TYPE sluice_requests_total counter
            sluice_requests_total{api_key="PRODUCE",node_id="1",virtual_cluster="bench"} 120.0
            sluice_requests_total{api_key="PRODUCE",node_id="2",virtual_cluster="bench"} 30.0
            sluice_requests_total{api_key="FETCH",node_id="1",virtual_cluster="bench"} 200.0
            sluice_requests_total{api_key="METADATA",node_id="bootstrap",virtual_cluster="bench"} 7.0
            sluice_requests_total{api_key="API_VERSIONS",node_id="bootstrap",virtual_cluster="other"} 3.0
            sluice_request_latency_seconds_count{api_key="PRODUCE",node_id="1",virtual_cluster="bench"} 999.0
            """;

    @Test
    void sumsEveryCollectorAndOnlyHeapPools() {
        ProxyMetricsScrape scrape = ProxyMetricsScrape.parse(EXPOSITION);

        assertThat(scrape.gcCollections()).isEqualTo(8);
        assertThat(scrape.gcPauseSeconds()).isCloseTo(0.121, within(1e-9));
        assertThat(scrape.heapUsedBytes()).isEqualTo(1500);
    }

    @Test
    void countsRequestsPerApiOverEveryNodeAndVirtualCluster() {
        ProxyMetricsScrape scrape = ProxyMetricsScrape.parse(EXPOSITION);

        assertThat(scrape.produceRequests()).isEqualTo(150);
        assertThat(scrape.fetchRequests()).isEqualTo(200);
        assertThat(scrape.totalRequests()).isEqualTo(360);
    }

    @Test
    void differenceCountsTheWindowAndKeepsTheLatestHeap() {
        ProxyMetricsScrape before = new ProxyMetricsScrape(3, 0.25, 10);
        ProxyMetricsScrape after = new ProxyMetricsScrape(8, 0.75, 1500);

        assertThat(after.since(before)).isEqualTo(new ProxyMetricsScrape(5, 0.5, 1500));
        assertThat(new ProxyMetricsScrape(8, 0.75, 1500, 110, 220, 400).since(new ProxyMetricsScrape(3, 0.25, 10, 10, 20, 50)))
                .isEqualTo(new ProxyMetricsScrape(5, 0.5, 1500, 100, 200, 350));
    }

    @Test
    void anUnreachableProxyYieldsZeros() {
        assertThat(ProxyMetricsScrape.read(1)).isEqualTo(new ProxyMetricsScrape(0, 0, 0));
    }
}
