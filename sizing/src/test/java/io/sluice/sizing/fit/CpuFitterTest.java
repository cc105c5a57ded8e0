package io.sluice.sizing.fit;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SyntheticRuns;
import io.sluice.sizing.points.PointMeasurer;
import io.sluice.sizing.points.TrafficPoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CpuFitterTest {

    private static final double BASELINE = 30;
    private static final double PER_MB = 1.5;
    private static final double PER_K_RECORDS = 4;

    @Test
    void separatesPerByteFromPerRecordCostWhenMessageSizesVary(@TempDir Path runs) throws Exception {
        Random random = new Random(3);
        int n = 0;
        for (int bytes : new int[] { 1024, 10_240, 102_400 }) {
            for (double produceMBps : new double[] { 1, 3, 6, 10, 15, 20 }) {
                double produceRate = produceMBps * 1e6 / bytes;
                SyntheticRuns.write(runs, "encryption", "size-" + bytes + "-" + n++, bytes, produceRate, 1.0,
                        cpu(2 * produceMBps, 2 * produceRate) + 5 * random.nextGaussian(), 300L << 20);
            }
        }

        CpuFitter.Fits fits = CpuFitter.fit("encryption", points(runs));

        CpuFit fit = fits.primary().orElseThrow();
        assertThat(fit.model()).isEqualTo(CpuModel.PER_BYTE_AND_RECORD);
        assertThat(fit.fit().coefficient(0)).isCloseTo(BASELINE, within(fit.fit().halfWidth95(0)));
        assertThat(fit.fit().coefficient(1)).isCloseTo(PER_MB, within(fit.fit().halfWidth95(1)));
        assertThat(fit.fit().coefficient(2)).isCloseTo(PER_K_RECORDS, within(fit.fit().halfWidth95(2)));
        // At 1 KiB a MB/s is ~977 records/s: 1.5 + 4 × 0.977 mc per MB/s.
        Estimate perMB = fit.millicoresPerMBps(1024);
        assertThat(perMB.value()).isCloseTo(PER_MB + PER_K_RECORDS * 1e3 / 1024, within(perMB.halfWidth95()));
        assertThat(fits.perRecordView()).isEmpty();
    }

    @Test
    void oneMessageSizeGivesThePerByteFitWithThePerRecordViewBesideIt(@TempDir Path runs) throws Exception {
        Random random = new Random(11);
        for (double produceMBps : new double[] { 2, 5, 10, 20, 30, 40 }) {
            double rate = produceMBps * 1e6 / 1024;
            SyntheticRuns.write(runs, "passthrough", "1kb-" + (int) produceMBps, 1024, rate, 1.0,
                    BASELINE + 2.4 * (2 * produceMBps) + 4 * random.nextGaussian(), 250L << 20);
        }

        CpuFitter.Fits fits = CpuFitter.fit("passthrough", points(runs));

        CpuFit fit = fits.primary().orElseThrow();
        assertThat(fit.model()).isEqualTo(CpuModel.PER_BYTE);
        assertThat(fit.fit().coefficient(1)).isCloseTo(2.4, within(fit.fit().halfWidth95(1)));
        assertThat(fits.perRecordView()).get().extracting(CpuFit::model).isEqualTo(CpuModel.PER_RECORD);
        assertThat(fits.notes()).anySatisfy(note -> assertThat(note).contains("cannot be told apart"));
        // One core: (1000 − baseline) / slope, within the interval the fit states.
        Estimate perCore = fit.mbpsPerCore(1024);
        assertThat(perCore.value()).isCloseTo((1000 - BASELINE) / 2.4, within(perCore.halfWidth95()));
    }

    @Test
    void saturatedRunsAreLeftOutOfTheFit(@TempDir Path runs) throws Exception {
        for (double produceMBps : new double[] { 2, 5, 10, 20 }) {
            SyntheticRuns.write(runs, "passthrough", "ok-" + (int) produceMBps, 1024, produceMBps * 1e6 / 1024, 1.0,
                    BASELINE + 2 * 2 * produceMBps, 250L << 20);
        }
        // Past saturation: 80 % achieved, and CPU flat at the machine's limit.
        SyntheticRuns.write(runs, "passthrough", "over-80", 1024, 80e6 / 1024, 0.8, 150, 250L << 20);

        List<TrafficPoint> points = points(runs);
        CpuFit fit = CpuFitter.fit("passthrough", points).primary().orElseThrow();

        assertThat(fit.points()).hasSize(4);
        assertThat(fit.fit().coefficient(1)).isCloseTo(2, within(1e-6));
        assertThat(points.stream().filter(TrafficPoint::saturated)).singleElement()
                .satisfies(p -> assertThat(p.reasons()).anySatisfy(r -> assertThat(r).contains("published 80.0 %")));
    }

    @Test
    void tooFewHealthyRunsGiveANoteInsteadOfAFit(@TempDir Path runs) throws Exception {
        SyntheticRuns.write(runs, "passthrough", "a", 1024, 1000, 1.0, 50, 1);
        SyntheticRuns.write(runs, "passthrough", "b", 1024, 2000, 1.0, 60, 1);

        CpuFitter.Fits fits = CpuFitter.fit("passthrough", points(runs));

        assertThat(fits.primary()).isEmpty();
        assertThat(fits.notes()).singleElement().satisfies(n -> assertThat(n).contains("at least 3 healthy runs").contains("has 2"));
    }

    private static double cpu(double totalMBps, double totalRecordsPerSecond) {
        return BASELINE + PER_MB * totalMBps + PER_K_RECORDS * totalRecordsPerSecond / 1000;
    }

    private static List<TrafficPoint> points(Path runs) {
        return ResultSetReader.read(runs).runs().stream().map(PointMeasurer::measure).toList();
    }
}
