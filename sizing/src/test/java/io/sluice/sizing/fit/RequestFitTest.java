package io.sluice.sizing.fit;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SyntheticRuns;
import io.sluice.sizing.plan.RequestRate;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;
import io.sluice.sizing.points.PointMeasurer;
import io.sluice.sizing.points.TrafficPoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** CPU fitted to requests and bytes together, from runs that vary batching at fixed byte rates. */
class RequestFitTest {

    private static final double BASELINE = 12;
    private static final double PER_MB = 0.5;
    private static final double PER_K_REQUESTS = 20;

    /** Produce MB/s × Produce requests/s: the same bytes in few large batches and many small ones. */
    private static final double[] PRODUCE_MBPS = { 5, 10, 20, 40 };
    private static final double[] PRODUCE_REQUESTS = { 200, 1_000, 5_000 };

    @Test
    void recoversKnownCoefficientsExactlyWithoutNoise(@TempDir Path runs) throws Exception {
        writeGrid(runs, 0, new Random(1));

        CpuFitter.Fits fits = CpuFitter.fit("passthrough", points(runs));

        CpuFit fit = fits.primary().orElseThrow();
        assertThat(fit.model()).isEqualTo(CpuModel.PER_REQUEST_AND_BYTE);
        assertThat(fit.fit().coefficient(0)).isCloseTo(BASELINE, within(1e-6));
        assertThat(fit.fit().coefficient(1)).isCloseTo(PER_MB, within(1e-6));
        assertThat(fit.fit().coefficient(2)).isCloseTo(PER_K_REQUESTS, within(1e-6));
        assertThat(fit.fit().rmsError()).isLessThan(1e-6);
        assertThat(fits.notes()).anySatisfy(n -> assertThat(n).contains("model: requests and bytes"));
    }

    @Test
    void recoversThemWithinTheStatedIntervalsWithNoise(@TempDir Path runs) throws Exception {
        writeGrid(runs, 3, new Random(7));

        CpuFit fit = CpuFitter.fit("passthrough", points(runs)).primary().orElseThrow();

        for (int i = 0; i < 3; i++) {
            assertThat(fit.fit().coefficient(i)).as(fit.fit().names().get(i))
                    .isCloseTo(new double[] { BASELINE, PER_MB, PER_K_REQUESTS }[i], within(fit.fit().halfWidth95(i)));
        }
        // The error reported is the noise put in: residuals per point, RMS in millicores and relative to the mean.
        assertThat(fit.fit().rmsError()).isBetween(1.5, 4.5);
        assertThat(fit.fit().observed()).hasSize(12);
        double sum = 0;
        for (int i = 0; i < 12; i++) {
            sum += fit.fit().residual(i) * fit.fit().residual(i);
        }
        assertThat(Math.sqrt(sum / 12)).isCloseTo(fit.fit().rmsError(), within(1e-9));
        assertThat(fit.fit().relativeRmsError()).isCloseTo(fit.fit().rmsError() / mean(fit.fit().observed()), within(1e-9));
    }

    /**
     * The mutation check on the model: without the request term the same runs leave residuals of tens of millicores
     * (the batching the runs varied), so a model that dropped it would be seen to fail.
     */
    @Test
    void droppingEitherTermLeavesLargeResiduals(@TempDir Path runs) throws Exception {
        writeGrid(runs, 0, new Random(1));
        List<TrafficPoint> points = points(runs);

        assertThat(CpuFitter.fit("passthrough", CpuModel.PER_BYTE, points).fit().rmsError()).isGreaterThan(30);
        assertThat(CpuFitter.fit("passthrough", CpuModel.PER_REQUEST_AND_BYTE, points).fit().rmsError()).isLessThan(1e-6);
    }

    @Test
    void sizesForTheTrafficsOwnRequests(@TempDir Path runs) throws Exception {
        writeGrid(runs, 0, new Random(1));
        // 20 MB/s produced, one group: 40 MB/s through the proxy; 3,000 requests/s given.
        TrafficSpec traffic = new TrafficSpec(20, 1, 1024, 1.3, 2000, RequestRate.given(3_000));

        Sizing sizing = Sizing.of(runs, ResultSetReader.read(runs), traffic, false);

        CpuFit fit = sizing.scenarios().get(0).fits().primary().orElseThrow();
        assertThat(fit.requestsPerMB()).isCloseTo(3_000 / 40.0, within(1e-9));
        assertThat(fit.millicores(40, 1024).value()).isCloseTo(BASELINE + PER_MB * 40 + PER_K_REQUESTS * 3, within(1e-6));
        // The same bytes in batches ten times smaller: ten times the requests, and the CPU follows them.
        CpuFit smallBatches = fit.at(30_000 / 40.0);
        assertThat(smallBatches.millicores(40, 1024).value()).isCloseTo(BASELINE + PER_MB * 40 + PER_K_REQUESTS * 30, within(1e-6));
        assertThat(sizing.scenarios().get(0).plan().orElseThrow().needPerPod().value())
                .isCloseTo(BASELINE + PER_MB * 40 + PER_K_REQUESTS * 3, within(1e-6));
    }

    @Test
    void olderRunsWithoutRequestCountsKeepTheBytesLineAndSaySo(@TempDir Path runs) throws Exception {
        for (double produceMBps : PRODUCE_MBPS) {
            SyntheticRuns.write(runs, "passthrough", "old-" + (int) produceMBps, 1024, produceMBps * 1e6 / 1024, 1.0,
                    BASELINE + PER_MB * 2 * produceMBps, 250L << 20);
        }
        SyntheticRuns.writeWithRequests(runs, "passthrough", "new-20", 1024, 20e6 / 1024, 80, 1000, 1000);

        CpuFitter.Fits fits = CpuFitter.fit("passthrough", points(runs));

        assertThat(fits.primary().orElseThrow().model()).isEqualTo(CpuModel.PER_BYTE);
        assertThat(fits.notes()).anySatisfy(n -> assertThat(n).contains("model: bytes only").contains("4 of 5 runs recorded no request counts"));
    }

    @Test
    void requestsThatFollowBytesCannotBeSeparatedAndTheNoteSaysWhatToRun(@TempDir Path runs) throws Exception {
        for (double produceMBps : PRODUCE_MBPS) {
            double requests = 50 * produceMBps;
            SyntheticRuns.writeWithRequests(runs, "passthrough", "prop-" + (int) produceMBps, 1024, produceMBps * 1e6 / 1024,
                    cpu(2 * produceMBps, 2 * requests), requests, requests);
        }

        CpuFitter.Fits fits = CpuFitter.fit("passthrough", points(runs));

        assertThat(fits.primary().orElseThrow().model()).isEqualTo(CpuModel.PER_BYTE);
        assertThat(fits.notes()).anySatisfy(n -> assertThat(n).contains("could not be separated").contains("--workloads batching"));
    }

    private static void writeGrid(Path runs, double noise, Random random) throws Exception {
        for (double produceMBps : PRODUCE_MBPS) {
            for (double produceRequests : PRODUCE_REQUESTS) {
                // One consumer group: Fetch requests about as many as Produce; bytes twice what is produced.
                double fetchRequests = produceRequests * 0.9;
                SyntheticRuns.writeWithRequests(runs, "passthrough", "w-" + (int) produceMBps + "-" + (int) produceRequests, 1024,
                        produceMBps * 1e6 / 1024, cpu(2 * produceMBps, produceRequests + fetchRequests) + noise * random.nextGaussian(),
                        produceRequests, fetchRequests);
            }
        }
    }

    private static double cpu(double totalMBps, double requestsPerSecond) {
        return BASELINE + PER_MB * totalMBps + PER_K_REQUESTS * requestsPerSecond / 1000;
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private static List<TrafficPoint> points(Path runs) {
        return ResultSetReader.read(runs).runs().stream().map(PointMeasurer::measure).toList();
    }
}
