package io.sluice.sizing.fit;

import java.util.List;

import io.sluice.sizing.points.TrafficPoint;

/**
 * A scenario's CPU as a function of its traffic, fitted to its healthy measured points, with what follows from it:
 * the cost of one more MB/s, the CPU a given traffic needs, and the traffic one core carries, each with its 95 %
 * interval.
 *
 * <p>With requests in the model, CPU depends on the traffic's shape as well as its bytes: the same MB/s in smaller
 * batches is more requests. Every figure derived here is then for traffic with {@code requestsPerMB} requests per MB
 * (see {@link #at}); splitting traffic over pods keeps that ratio, so per-pod figures scale as before.
 *
 * @param points        the points the fit used, in the order of the fit's rows
 * @param requestsPerMB Produce + Fetch requests per MB of total traffic the derived figures are for; only read by a
 *                      model with requests
 */
public record CpuFit(String scenario, CpuModel model, LinearFit fit, List<TrafficPoint> points, double requestsPerMB) {

    /** Derived figures at the fitted runs' own mean requests per MB, until {@link #at} says otherwise. */
    public CpuFit(String scenario, CpuModel model, LinearFit fit, List<TrafficPoint> points) {
        this(scenario, model, fit, points, measuredRequestsPerMB(points));
    }

    /** The same fit, its derived figures for traffic with this many requests per MB. */
    public CpuFit at(double requestsPerMB) {
        return new CpuFit(scenario, model, fit, points, requestsPerMB);
    }

    /** Millicores per MB/s of total traffic at this message size: b, plus c × the records in a MB, plus r × the requests in it. */
    public Estimate millicoresPerMBps(int messageBytes) {
        double[] gradient = model.slopeRow(messageBytes, requestsPerMB);
        return new Estimate(fit.predict(gradient), fit.halfWidth95Of(gradient));
    }

    /** CPU the proxy needs, on average, for this traffic. */
    public Estimate millicores(double totalMBps, int messageBytes) {
        double[] row = model.row(totalMBps, messageBytes, requestsPerMB);
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
        double[] slopeRow = model.slopeRow(messageBytes, requestsPerMB);
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

    private static double measuredRequestsPerMB(List<TrafficPoint> points) {
        return points.stream()
                .filter(p -> p.totalKRequestsPerSecond().isPresent() && p.totalMBps() > 0)
                .mapToDouble(p -> p.totalKRequestsPerSecond().getAsDouble() * 1000 / p.totalMBps())
                .average().orElse(0);
    }
}
