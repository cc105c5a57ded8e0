package io.sluice.sizing.report;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SweepFixture;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;

import static org.assertj.core.api.Assertions.assertThat;

class HtmlReportTest {

    @Test
    void isSelfContainedAndChartsEveryMeasuredPoint(@TempDir Path runs) throws Exception {
        String html = report(runs);

        // Nothing to fetch: no scripts, no stylesheets or images from elsewhere.
        assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("src=");
        assertThat(count(html, "<svg ")).isEqualTo(1);
        assertThat(count(html, "class=\"point healthy\"")).isEqualTo(4);
        assertThat(count(html, "class=\"point saturated\"")).isEqualTo(1);
        assertThat(html).contains("class=\"fit-line\"", "class=\"fit-band\"", "class=\"saturation-region\"",
                "class=\"reference kroxylicious-10\"", "class=\"reference kroxylicious-25\"");
        // Every run is listed with the tool that produced it, including the broker-direct ones with no CPU.
        assertThat(count(html, "<td class=\"l\">sluice-bench</td>")).isEqualTo(10);
        assertThat(html).contains("millicores per MB/s", "Kroxylicious publishes 10 mc per MB/s", "kind: Deployment");
    }

    @Test
    void theChartAndTheRecommendationComeBeforeEveryRunTable(@TempDir Path runs) throws Exception {
        String html = report(runs);

        int firstRunTable = html.indexOf("<table class=\"runs\"");
        assertThat(html.indexOf("<svg ")).isPositive().isLessThan(firstRunTable);
        assertThat(html.indexOf("<h3>Recommendation</h3>")).isPositive().isLessThan(firstRunTable);
        // Both scenarios' runs are listed, the one without proxy CPU (direct) included.
        assertThat(count(html.substring(firstRunTable), "<table class=\"runs\"")).isEqualTo(2);
    }

    @Test
    void textFromResultsIsEscaped() {
        assertThat(Html.escape("<b>\"x\" & 'y'</b>")).isEqualTo("&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;");
    }

    static String report(Path runs) throws Exception {
        SweepFixture.write(runs);
        return HtmlReport.of(Sizing.of(runs, ResultSetReader.read(runs), new TrafficSpec(50, 1, 1024, 1.3, 2000), false));
    }

    static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
