package io.sluice.sizing.projection;

import java.util.List;

import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LeastSquares;
import io.sluice.sizing.fit.LinearFit;

/**
 * Projects a sweep measured here to a seed's larger scale. Within one scenario every client receives the same rate, so
 * messages rise with clients and the bridge's CPU and memory are each one line in the client count:
 * {@code cores = a + b × clients}, {@code RSS = m + n × clients}. The line is fitted to the measured points
 * (the sizing's least squares) and read at the seed's client count, with its 95 % prediction interval. That interval
 * only covers the scatter of the points: the projection assumes the line holds beyond the largest point measured,
 * which no measurement here can show.
 */
public record ScaleProjection(LinearFit cores, LinearFit rssMiB, int largestMeasured) {

    private static final List<String> CORES = List.of("cores at 0 clients", "cores per 1000 clients");
    private static final List<String> RSS = List.of("RSS MiB at 0 clients", "RSS MiB per 1000 clients");

    /** A measured point: clients connected, bridge cores used, bridge RSS. */
    public record Point(int clients, double cores, double rssMiB) {
    }

    /** Null when fewer than 3 points were measured: a line through two points has no error to state. */
    public static ScaleProjection fit(List<Point> points) {
        if (points.size() < 3) {
            return null;
        }
        double[][] rows = points.stream().map(p -> new double[] {1, p.clients() / 1000.0}).toArray(double[][]::new);
        double[] cores = points.stream().mapToDouble(Point::cores).toArray();
        double[] rss = points.stream().mapToDouble(Point::rssMiB).toArray();
        int largest = points.stream().mapToInt(Point::clients).max().orElseThrow();
        return new ScaleProjection(LeastSquares.fit(CORES, rows, cores), LeastSquares.fit(RSS, rows, rss), largest);
    }

    public Estimate coresAt(int clients) {
        double[] row = {1, clients / 1000.0};
        return new Estimate(cores.predict(row), cores.predictionHalfWidth95(row));
    }

    public Estimate rssMiBAt(int clients) {
        double[] row = {1, clients / 1000.0};
        return new Estimate(rssMiB.predict(row), rssMiB.predictionHalfWidth95(row));
    }

    /** One line a reader can check: what is projected, from what, and how far beyond the measurements. */
    public String describe(int clients) {
        Estimate c = coresAt(clients);
        Estimate m = rssMiBAt(clients);
        return "projected to %,d clients (%.1f× the largest measured, %,d): bridge CPU %.2f ± %.2f cores, RSS %,.0f ± %,.0f MiB "
                .formatted(clients, clients / (double) largestMeasured, largestMeasured, c.value(), c.halfWidth95(), m.value(), m.halfWidth95())
                + "(lines in clients fitted to this sweep, 95 % prediction interval of their scatter; assumes the lines hold beyond the "
                + "largest point, and latency cannot be projected)";
    }
}
