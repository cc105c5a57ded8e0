package io.sluice.bench.bridge;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** The summary of a run in the table format of Kafkorama's published benchmark, plus the bridge's own costs. */
public final class BenchReport {

    private BenchReport() {
    }

    public static void print(BenchResult r, PrintStream out) {
        out.println();
        out.printf("== sluice bench bridge over %s: %,.0f s measured, %d cores shared by Kafka, the bridge and the load; load average %s -> %s ==%n",
                r.transport(), r.seconds(), Runtime.getRuntime().availableProcessors(), r.loadAverageStart(), r.loadAverageEnd());
        out.println("| Metric | Value |");
        out.println("|---|---|");
        row(out, "Transport", switch (r.transport()) {
            case "websocket" -> "websocket (one WebSocket per client)";
            case "mqtt" -> "mqtt (one MQTT 3.1.1 connection per client, QoS 0)";
            default -> "sse (one GET {path}/sse event stream per client, HTTP/1.1 chunked)";
        });
        row(out, "Concurrent clients", "%,d (of %,d; %,d failed to connect, %,d closed by the bridge)".formatted(
                r.connectionsSubscribed(), r.connectionsRequested(), r.connectFailures(), r.serverCloses()));
        row(out, "Outgoing throughput", "%,.0f messages/s (expected %,.0f)".formatted(r.msgsPerSecondOut(), r.expectedMsgsPerSecondOut()));
        row(out, "Outgoing network usage", "%.1f MB/s".formatted(r.mbPerSecondOut()));
        row(out, "Bytes on the wire per message", Double.isNaN(r.bytesPerMessage()) ? "n/a"
                : "%,.0f B (values: %s, %,d B each on average)".formatted(r.bytesPerMessage(), r.values(), r.payloadBytes()));
        if (r.deltasDelivered() > 0) {
            row(out, "Delivered as deltas", "%.1f %%".formatted(100.0 * r.deltasDelivered() / r.messagesDelivered()));
        }
        row(out, "Latency mean (standard deviation)", "%.2f ms (%.2f ms)".formatted(r.latencyMeanMs(), r.latencyStdDevMs()));
        row(out, "Latency 99th percentile", "%.1f ms".formatted(r.latencyP99Ms()));
        row(out, "Latency max", "%.1f ms".formatted(r.latencyMaxMs()));
        row(out, "Bridge CPU", Double.isNaN(r.bridgeCores()) ? "n/a" : "%.2f cores".formatted(r.bridgeCores()));
        row(out, "Bridge CPU per million messages delivered", Double.isNaN(r.bridgeCpuSecondsPerMillion()) ? "n/a"
                : "%.2f CPU-s (%.2f of it in the kernel)".formatted(r.bridgeCpuSecondsPerMillion(), r.bridgeKernelCpuSecondsPerMillion()));
        row(out, "Bridge memory per connection", "%s RSS, %s heap after full GC".formatted(
                BridgeBenchmark.kb(r.rssPerConnectionBytes()), BridgeBenchmark.kb(r.heapPerConnectionBytes())));
        out.printf("%,d messages delivered (%,d without a readable stamp) from %,d produced; publisher at most %.1f ms behind its schedule%n",
                r.messagesDelivered(), r.messagesUnstamped(), r.messagesProduced(), r.publisherMaxLagMs());
        out.println("latency: scheduled send time in benchpub -> frame or event read in benchsub (same JVM clock); MB/s: "
                + switch (r.transport()) {
                    case "websocket" -> "WebSocket frame bytes";
                    case "mqtt" -> "MQTT packet bytes";
                    default -> "SSE body bytes (chunk framing, ids, heartbeats)";
                }
                + " received; CPU: bridge process utime+stime from /proc (kernel: stime, which on loopback includes the subscribers' TCP input); memory: (with connections - before) / connections");
        if (r.firstProblem() != null) {
            out.println("first problem seen: " + r.firstProblem());
        }
    }

    static void writeJson(BenchResult r, Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), r);
    }

    private static void row(PrintStream out, String metric, String value) {
        out.printf("| %s | %s |%n", metric, value);
    }
}
