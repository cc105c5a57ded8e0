package io.sluice.sizing.report;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.bridge.BridgeResultReader;

import static org.assertj.core.api.Assertions.assertThat;

class BridgeChartTest {

    @Test
    void drawsEveryPointSaturatedOnesHollowAndOneSeriesPerLoadShape(@TempDir Path dir) throws Exception {
        // Two load shapes (1 and 0.5 msg/s per connection) and one point that delivered under 95 % of its target.
        Path file = Files.writeString(dir.resolve("s.bridge.json"), """
                {"tool": "sluice-bench-bridge", "scenario": "s <1>", "messageBytes": 512, "points": [
                 {"connections": 1000, "targetMessagesPerSecond": 1000, "deliveredMessagesPerSecond": 1000, "cpuMillicores": 100,
                  "deliveryLatencyMeanMs": 2.5, "deliveryLatencyP99Ms": 9.0},
                 {"connections": 5000, "targetMessagesPerSecond": 5000, "deliveredMessagesPerSecond": 5000, "cpuMillicores": 300,
                  "deliveryLatencyMeanMs": 3.5, "deliveryLatencyP99Ms": 12.0},
                 {"connections": 9000, "targetMessagesPerSecond": 9000, "deliveredMessagesPerSecond": 6000, "cpuMillicores": 990,
                  "deliveryLatencyMeanMs": 900, "deliveryLatencyP99Ms": 4200},
                 {"connections": 9000, "targetMessagesPerSecond": 4500, "deliveredMessagesPerSecond": 4500, "cpuMillicores": 400}
                ]}
                """);
        List<BridgePoint> points = BridgeResultReader.read(file);

        Path svg = Files.writeString(dir.resolve(BridgeChart.fileName("s <1>")), BridgeChart.of("s <1>", points).orElseThrow());
        Document chart = DocumentedChartsTest.parse(svg);

        assertThat(svg.getFileName().toString()).isEqualTo("bridge-chart-s__1_.svg");
        assertThat(DocumentedChartsTest.count(chart, "point cpu")).isEqualTo(4);
        assertThat(DocumentedChartsTest.count(chart, "point latency-mean")).isEqualTo(3);
        assertThat(DocumentedChartsTest.count(chart, "point latency-p99")).isEqualTo(3);
        assertThat(DocumentedChartsTest.count(chart, "saturated")).isEqualTo(3);
        // Lines join the 1 msg/s series (mean, p99, CPU); the 0.5 msg/s series has one point, so no line.
        assertThat(DocumentedChartsTest.count(chart, "series")).isEqualTo(3);
        String text = Files.readString(svg);
        assertThat(text).contains(">0.5 msg/s per connection<", ">1 msg/s per connection<", ">saturated<", "delivery latency, ms (log)")
                .contains("aria-label=\"s &lt;1&gt;: bridge");
        // Decades from 1 ms to 10 s, so the slow point's p99 is on the chart.
        assertThat(text).contains(">10,000</text>");
    }

    @Test
    void noPointsNoChart() {
        assertThat(BridgeChart.of("empty", List.of())).isEmpty();
    }
}
