package io.sluice.sizing.report;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SweepFixture;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;

import static org.assertj.core.api.Assertions.assertThat;

class TextSummaryTest {

    @Test
    void showsThePodsAndTheChartBeforeTheEvidenceAndHasNoEscapeSequences(@TempDir Path runs) throws Exception {
        SweepFixture.write(runs);
        Path reportDir = runs.resolve("sizing-report");

        String text = TextSummary.of(Sizing.of(runs, ResultSetReader.read(runs), new TrafficSpec(50, 1, 1024, 1.3, 2000), false), reportDir);

        // Plain text: a file, a log or a pasted doc shows it as it is (no colours, no cursor movement).
        assertThat(text.chars().filter(c -> c != '\n' && (c < 0x20 || (c >= 0x7f && c < 0xa0)))).as(text).isEmpty();
        String passthrough = text.substring(text.indexOf("== passthrough"));
        int pods = passthrough.indexOf("replicas:");
        int chart = passthrough.indexOf("chart: " + reportDir.resolve("chart-passthrough.svg"));
        int fit = passthrough.indexOf("fit:");
        int runsLine = passthrough.indexOf("runs: healthy up to");
        int saturated = passthrough.indexOf("saturated: ");
        assertThat(pods).as(text).isPositive();
        assertThat(chart).as(text).isGreaterThan(pods);
        assertThat(fit).as(text).isGreaterThan(chart);
        assertThat(runsLine).as(text).isGreaterThan(fit);
        assertThat(saturated).as(text).isGreaterThan(runsLine);
        // The chart sketched in characters between the chart's name and the fit: the healthy runs, the saturated one, the fit.
        String sketch = passthrough.substring(chart, fit);
        assertThat(sketch).contains("proxy CPU against total traffic: * healthy run, o saturated run, . fit, | sized per pod");
        String grid = sketch.substring(sketch.indexOf('\n', sketch.indexOf("proxy CPU against")) + 1, sketch.lastIndexOf("+"));
        assertThat(grid).contains("*", "o", ".", "|");
        assertThat(sketch).contains("~").contains(" MB/s");
    }
}
