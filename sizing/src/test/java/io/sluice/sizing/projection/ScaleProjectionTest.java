package io.sluice.sizing.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.Test;

class ScaleProjectionTest {

    @Test
    void aSweepOnALineIsProjectedOnItWithoutError() {
        // 0.1 core + 0.05 per 1000 clients; 200 MiB + 12 MiB per 1000 clients.
        List<ScaleProjection.Point> points = List.of(point(1_000), point(4_000), point(8_000), point(16_000));

        ScaleProjection projection = ScaleProjection.fit(points);

        assertThat(projection.coresAt(50_000).value()).isCloseTo(0.1 + 0.05 * 50, within(1e-9));
        assertThat(projection.coresAt(50_000).halfWidth95()).isCloseTo(0, within(1e-6));
        assertThat(projection.rssMiBAt(50_000).value()).isCloseTo(200 + 12 * 50, within(1e-9));
        assertThat(projection.describe(50_000)).contains("50,000 clients", "3.1× the largest measured, 16,000", "2.60 ± 0.00 cores");
    }

    @Test
    void scatterWidensTheIntervalAndTwoPointsAreNoProjection() {
        List<ScaleProjection.Point> noisy = List.of(new ScaleProjection.Point(1_000, 0.16, 212), new ScaleProjection.Point(4_000, 0.28, 248),
                new ScaleProjection.Point(8_000, 0.52, 296), new ScaleProjection.Point(16_000, 0.88, 392));

        assertThat(ScaleProjection.fit(noisy).coresAt(50_000).halfWidth95()).isGreaterThan(0.05);
        assertThat(ScaleProjection.fit(noisy.subList(0, 2))).isNull();
    }

    private static ScaleProjection.Point point(int clients) {
        return new ScaleProjection.Point(clients, 0.1 + 0.05 * clients / 1000.0, 200 + 12 * clients / 1000.0);
    }
}
