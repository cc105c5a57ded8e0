package io.sluice.sizing.report;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import io.sluice.results.read.ResultSetReader;
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.bridge.BridgeResultReader;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The charts the docs embed are what the committed runs draw today, byte for byte, so the pictures cannot drift from
 * the code or the data: a change to either that moves a pixel fails here until the charts are regenerated with the
 * command each assertion names.
 */
class DocumentedChartsTest {

    private static final Path DOCS = Path.of("..", "docs");
    private static final Path PROXY_RUNS = DOCS.resolve("sizing-runs/2026-11-22");
    private static final Path BRIDGE_RUNS = DOCS.resolve("bridge-runs/2026-11-22");
    /** Measured with {@code bench bridge --out}, every field recorded (rssBytes included). */
    private static final Path MEASURED_BRIDGE_RUNS = DOCS.resolve("bridge-runs/2026-11-24");

    @Test
    void theProxyChartInSizingMdIsWhatTheCommittedRunsDraw(@TempDir Path out) throws Exception {
        // The traffic of the command docs/sizing.md shows (message size, headroom and pod size at their defaults).
        Sizing sizing = Sizing.of(PROXY_RUNS, ResultSetReader.read(PROXY_RUNS), new TrafficSpec(50, 1, 1024, 1.3, 2000), false);
        ReportFiles.write(sizing, out);
        String name = SvgChart.fileName("passthrough");
        Path committed = PROXY_RUNS.resolve("sizing-report").resolve(name);

        assertSameBytes(out.resolve(name), committed, "./sluice size --runs docs/sizing-runs/2026-11-22 --produce-mb-s 50 --consumer-groups 1");
        Document svg = parse(committed);
        assertThat(count(svg, "point healthy")).isEqualTo(9);
        assertThat(count(svg, "point saturated")).isEqualTo(3);
        assertThat(count(svg, "fit-line")).isEqualTo(1);
        assertThat(count(svg, "fit-band")).isEqualTo(1);
        assertThat(count(svg, "saturation-region")).isEqualTo(1);
        assertThat(Files.readString(DOCS.resolve("sizing.md"))).contains("](sizing-runs/2026-11-22/sizing-report/" + name + ")");
    }

    @Test
    void theBridgeChartInPerformanceMdIsWhatTheCommittedPointsDraw(@TempDir Path out) throws Exception {
        List<BridgePoint> points = BridgeResultReader.readAll(BRIDGE_RUNS);
        assertThat(points).extracting(BridgePoint::scenario).containsOnly("fanout-512b");
        ReportFiles.writeBridgeCharts(Map.of("fanout-512b", points), out);
        String name = BridgeChart.fileName("fanout-512b");
        Path committed = BRIDGE_RUNS.resolve("sizing-report").resolve(name);

        assertSameBytes(out.resolve(name), committed, "./sluice size bridge --runs docs/bridge-runs/2026-11-22");
        Document svg = parse(committed);
        // Five points measured; the idle one has no latency.
        assertThat(count(svg, "cpu")).isEqualTo(5);
        assertThat(count(svg, "latency-mean")).isEqualTo(4);
        assertThat(count(svg, "latency-p99")).isEqualTo(4);
        assertThat(count(svg, "saturated")).isZero();
        String link = "](bridge-runs/2026-11-22/sizing-report/" + name + ")";
        assertThat(Files.readString(DOCS.resolve("performance.md"))).contains(link);
    }

    @Test
    void theBridgeChartInSizingMdIsWhatTheMeasuredRunsDraw(@TempDir Path out) throws Exception {
        List<BridgePoint> points = BridgeResultReader.readAll(MEASURED_BRIDGE_RUNS);
        assertThat(points).extracting(BridgePoint::scenario).containsOnly("fanout-512b");
        ReportFiles.writeBridgeCharts(Map.of("fanout-512b", points), out);
        String name = BridgeChart.fileName("fanout-512b");
        Path committed = MEASURED_BRIDGE_RUNS.resolve("sizing-report").resolve(name);

        assertSameBytes(out.resolve(name), committed, "./sluice size bridge --runs docs/bridge-runs/2026-11-24");
        Document svg = parse(committed);
        // Five points measured; the idle one has no latency; 19,000 x 2.63 msg/s fell behind (94 % delivered).
        assertThat(count(svg, "cpu")).isEqualTo(5);
        assertThat(count(svg, "latency-mean")).isEqualTo(4);
        assertThat(count(svg, "latency-p99")).isEqualTo(4);
        assertThat(Files.readString(DOCS.resolve("sizing.md"))).contains("](bridge-runs/2026-11-24/sizing-report/" + name + ")");
    }

    @Test
    void noDocumentHasTerminalEscapeSequences() throws Exception {
        try (Stream<Path> docs = Files.list(DOCS)) {
            for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                assertThat(Files.readString(doc)).as("%s holds an ESC character (a terminal colour code pasted with output)", doc)
                        .doesNotContain("\u001b");
            }
        }
    }

    private static void assertSameBytes(Path generated, Path committed, String regenerate) throws Exception {
        byte[] expected = Files.readAllBytes(committed);
        byte[] actual = Files.readAllBytes(generated);
        String hint = "the committed " + committed + " differs from what the code draws now; regenerate it with: " + regenerate;
        assertThat(new String(actual, StandardCharsets.UTF_8)).as(hint).isEqualTo(new String(expected, StandardCharsets.UTF_8));
        assertThat(actual).as(hint).isEqualTo(expected);
    }

    /** Parsed as XML by the JDK, with DTDs refused: well-formed, and an SVG root in the SVG namespace. */
    static Document parse(Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        Document document = factory.newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(file)));
        assertThat(document.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(document.getDocumentElement().getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
        return document;
    }

    /** Elements whose class list holds every one of the space-separated classes given. */
    static int count(Document svg, String classes) throws Exception {
        StringBuilder predicate = new StringBuilder();
        for (String c : classes.split(" ")) {
            predicate.append(predicate.length() == 0 ? "" : " and ").append("contains(concat(' ', @class, ' '), ' ").append(c).append(" ')");
        }
        return ((Number) XPathFactory.newInstance().newXPath().evaluate("count(//*[" + predicate + "])", svg, XPathConstants.NUMBER)).intValue();
    }
}
