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
            """;

    @Test
    void sumsEveryCollectorAndOnlyHeapPools() {
        ProxyMetricsScrape scrape = ProxyMetricsScrape.parse(EXPOSITION);

        assertThat(scrape.gcCollections()).isEqualTo(8);
        assertThat(scrape.gcPauseSeconds()).isCloseTo(0.121, within(1e-9));
        assertThat(scrape.heapUsedBytes()).isEqualTo(1500);
    }

    @Test
    void differenceCountsTheWindowAndKeepsTheLatestHeap() {
        ProxyMetricsScrape before = new ProxyMetricsScrape(3, 0.25, 10);
        ProxyMetricsScrape after = new ProxyMetricsScrape(8, 0.75, 1500);

        assertThat(after.since(before)).isEqualTo(new ProxyMetricsScrape(5, 0.5, 1500));
    }

    @Test
    void anUnreachableProxyYieldsZeros() {
        assertThat(ProxyMetricsScrape.read(1)).isEqualTo(new ProxyMetricsScrape(0, 0, 0));
    }
}
