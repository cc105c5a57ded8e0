package io.sluice.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * One read of a proxy's Prometheus {@code /metrics}: the garbage-collection and heap figures a benchmark reports
 * beside the CPU, and the requests the proxy answered ({@code sluice_requests_total}, every virtual cluster and
 * node), Produce and Fetch apart. The JVM's own view of its GC is the only one there is, so it comes from the proxy
 * rather than /proc; the request counts are what the sizing fits CPU to, since the proxy's work is per request.
 *
 * @param produceRequests Produce requests answered since the proxy started
 * @param fetchRequests   Fetch requests answered since the proxy started
 * @param totalRequests   requests of every API answered since the proxy started
 */
public record ProxyMetricsScrape(long gcCollections, double gcPauseSeconds, long heapUsedBytes,
                                 long produceRequests, long fetchRequests, long totalRequests) {

    static final String REQUESTS = "sluice_requests_total";

    /** GC and heap only, no request counts: a proxy that exposes none (or a test that needs none). */
    public ProxyMetricsScrape(long gcCollections, double gcPauseSeconds, long heapUsedBytes) {
        this(gcCollections, gcPauseSeconds, heapUsedBytes, 0, 0, 0);
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Reads {@code http://127.0.0.1:PORT/metrics}; empty figures (zeros) when it cannot be read. */
    public static ProxyMetricsScrape read(int managementPort) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? parse(response.body()) : new ProxyMetricsScrape(0, 0, 0);
        } catch (IOException e) {
            return new ProxyMetricsScrape(0, 0, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ProxyMetricsScrape(0, 0, 0);
        }
    }

    static ProxyMetricsScrape parse(String exposition) {
        return new ProxyMetricsScrape(
                (long) sum(exposition, "jvm_gc_pause_seconds_count", labels -> true),
                sum(exposition, "jvm_gc_pause_seconds_sum", labels -> true),
                (long) sum(exposition, "jvm_memory_used_bytes", labels -> labels.contains("area=\"heap\"")),
                (long) sum(exposition, REQUESTS, labels -> labels.contains("api_key=\"PRODUCE\"")),
                (long) sum(exposition, REQUESTS, labels -> labels.contains("api_key=\"FETCH\"")),
                (long) sum(exposition, REQUESTS, labels -> true));
    }

    /** The change from an earlier scrape: collections, pause time and requests in between, heap now. */
    public ProxyMetricsScrape since(ProxyMetricsScrape earlier) {
        return new ProxyMetricsScrape(gcCollections - earlier.gcCollections, gcPauseSeconds - earlier.gcPauseSeconds, heapUsedBytes,
                produceRequests - earlier.produceRequests, fetchRequests - earlier.fetchRequests, totalRequests - earlier.totalRequests);
    }

    /** Sums every series of a metric (all collectors, all memory pools) whose labels pass the filter. */
    private static double sum(String exposition, String metric, Predicate<String> labels) {
        double total = 0;
        for (String line : exposition.split("\n")) {
            if (!line.startsWith(metric)) {
                continue;
            }
            String rest = line.substring(metric.length());
            String labelText = "";
            if (rest.startsWith("{")) {
                int close = rest.indexOf('}');
                if (close < 0) {
                    continue;
                }
                labelText = rest.substring(1, close);
                rest = rest.substring(close + 1);
            } else if (!rest.startsWith(" ")) {
                continue; // a longer name with this one as its prefix
            }
            String[] value = rest.trim().split("\\s+");
            if (labels.test(labelText) && value.length > 0) {
                try {
                    total += Double.parseDouble(value[0]);
                } catch (NumberFormatException ignored) {
                    // NaN and friends are not counts
                }
            }
        }
        return total;
    }
}
