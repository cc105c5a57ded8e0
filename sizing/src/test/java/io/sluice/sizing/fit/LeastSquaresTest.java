package io.sluice.sizing.fit;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LeastSquaresTest {

    private static final double BASELINE = 40;
    private static final double PER_MB = 2.5;
    private static final double NOISE = 10;

    @Test
    void recoversKnownCoefficientsWithinTheirStatedInterval() {
        LinearFit fit = noisyLine(new Random(7), 8);

        assertThat(fit.coefficient(0)).isCloseTo(BASELINE, within(fit.halfWidth95(0)));
        assertThat(fit.coefficient(1)).isCloseTo(PER_MB, within(fit.halfWidth95(1)));
        assertThat(fit.degreesOfFreedom()).isEqualTo(6);
        assertThat(fit.rSquared()).isGreaterThan(0.95);
        // The residual standard error estimates the noise that was added.
        assertThat(fit.residualStdError()).isBetween(NOISE / 3, NOISE * 3);
    }

    @Test
    void statedNinetyFivePercentIntervalsCoverTheTruthNinetyFivePercentOfTheTime() {
        // If the errors were understated, the intervals would miss the true values far more than 1 time in 20.
        int trials = 2000;
        int coveredBaseline = 0;
        int coveredSlope = 0;
        Random random = new Random(42);
        for (int t = 0; t < trials; t++) {
            LinearFit fit = noisyLine(random, 6);
            coveredBaseline += Math.abs(fit.coefficient(0) - BASELINE) <= fit.halfWidth95(0) ? 1 : 0;
            coveredSlope += Math.abs(fit.coefficient(1) - PER_MB) <= fit.halfWidth95(1) ? 1 : 0;
        }
        assertThat(coveredBaseline / (double) trials).isBetween(0.93, 0.97);
        assertThat(coveredSlope / (double) trials).isBetween(0.93, 0.97);
    }

    @Test
    void anExactLineHasNoErrorAndRSquaredOne() {
        double[][] rows = { { 1, 1 }, { 1, 2 }, { 1, 3 } };
        LinearFit fit = LeastSquares.fit(List.of("a", "b"), rows, new double[] { 5, 7, 9 });

        assertThat(fit.coefficient(0)).isCloseTo(3, within(1e-9));
        assertThat(fit.coefficient(1)).isCloseTo(2, within(1e-9));
        assertThat(fit.standardErrors()[1]).isCloseTo(0, within(1e-9));
        assertThat(fit.rSquared()).isCloseTo(1, within(1e-12));
    }

    @Test
    void columnsThatSayTheSameThingAreReportedAsCollinear() {
        // Bytes and records at one message size: the second column is the first times a constant.
        double[][] rows = { { 1, 1, 0.98 }, { 1, 2, 1.95 }, { 1, 4, 3.91 }, { 1, 8, 7.81 } };
        for (double[] row : rows) {
            row[2] = row[1] * 0.9765625;
        }
        assertThatThrownBy(() -> LeastSquares.fit(List.of("baseline", "per MB/s", "per 1000 records/s"), rows, new double[] { 1, 2, 3, 4 }))
                .isInstanceOf(LeastSquares.CollinearException.class)
                .hasMessageContaining("combination of the others");
    }

    @Test
    void tooFewPointsToEstimateAnErrorIsRefused() {
        assertThatThrownBy(() -> LeastSquares.fit(List.of("a", "b"), new double[][] { { 1, 1 }, { 1, 2 } }, new double[] { 1, 2 }))
                .hasMessageContaining("need at least 3 points");
    }

    @Test
    void studentTIsWiderThanTheNormalForFewPointsAndApproachesIt() {
        assertThat(StudentT.quantile975(3)).isCloseTo(3.182, within(1e-3));
        assertThat(StudentT.quantile975(40)).isCloseTo(2.021, within(1e-3));
        assertThat(StudentT.quantile975(1000)).isCloseTo(1.962, within(1e-3));
    }

    /** millicores = 40 + 2.5 × MB/s + N(0, 10²), at n rates spread from 2 to 100 MB/s. */
    private static LinearFit noisyLine(Random random, int n) {
        double[][] rows = new double[n][];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double mbps = 2 + 98.0 * i / (n - 1);
            rows[i] = new double[] { 1, mbps };
            y[i] = BASELINE + PER_MB * mbps + NOISE * random.nextGaussian();
        }
        return LeastSquares.fit(List.of("baseline", "per MB/s"), rows, y);
    }
}
