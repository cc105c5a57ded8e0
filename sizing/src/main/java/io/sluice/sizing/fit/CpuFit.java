package io.sluice.sizing.fit;

import java.util.List;

import io.sluice.sizing.points.TrafficPoint;

/**
 * A scenario's CPU as a function of its traffic, fitted to its healthy measured points, with what follows from it:
 * the cost of one more MB/s, the CPU a given traffic needs, and the traffic one core carries, each with its 95 %
 * interval.
 *
 * @param points the points the fit used
 */
public record CpuFit(String scenario, CpuModel model, LinearFit fit, List<TrafficPoint> points) {

    /** Millicores per MB/s of total traffic at this message size: b, plus c × the records in a MB. */
    public Estimate millicoresPerMBps(int messageBytes) {
        double[] gradient = model.slopeRow(messageBytes);
        return new Estimate(fit.predict(gradient), fit.halfWidth95Of(gradient));
    }

    /** CPU the proxy needs, on average, for this traffic. */
    public Estimate millicores(double totalMBps, int messageBytes) {
        double[] row = model.row(totalMBps, messageBytes);
        return new Estimate(fit.predict(row), fit.predictionHalfWidth95(row));
    }

    public Estimate baselineMillicores() {
        return new Estimate(fit.coefficient(0), fit.halfWidth95(0));
    }

    /**
     * MB/s of total traffic that fill one core (1000 millicores) at this message size: (1000 − a) / slope. Its
     * interval comes from the covariance of a and the slope (delta method).
     */
    public Estimate mbpsPerCore(int messageBytes) {
        double[] slopeRow = model.slopeRow(messageBytes);
        double slope = fit.predict(slopeRow);
        double headroom = 1000 - fit.coefficient(0);
        double value = headroom / slope;
        // g = (1000 − β·e0) / (β·s): ∂g/∂β = −e0/slope − s·headroom/slope².
        double[] gradient = new double[slopeRow.length];
        for (int i = 0; i < gradient.length; i++) {
            gradient[i] = -(i == 0 ? 1 : 0) / slope - slopeRow[i] * headroom / (slope * slope);
        }
        return new Estimate(value, fit.halfWidth95Of(gradient));
    }

    /** The largest total traffic among the points: beyond it a prediction is an extrapolation. */
    public double maxMeasuredMBps() {
        return points.stream().mapToDouble(TrafficPoint::totalMBps).max().orElse(0);
    }
}
