package io.sluice.sizing.fit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.sizing.points.TrafficPoint;

/**
 * Fits a scenario's healthy points. Where every point counted the proxy's requests, the requests-and-bytes model is
 * the one to size with (the proxy's cost follows requests more than bytes). Otherwise, as for result files written
 * before requests were counted: with two or more message sizes the bytes-and-records model; with one size the
 * per-byte model, and the per-record model beside it, the same data seen per record. The notes say which was used
 * and why.
 */
public final class CpuFitter {

    /** The fits of one scenario, or why there are none. */
    public record Fits(String scenario, Optional<CpuFit> primary, Optional<CpuFit> perRecordView, List<String> notes) {
    }

    private CpuFitter() {
    }

    public static Fits fit(String scenario, List<TrafficPoint> all) {
        List<TrafficPoint> points = all.stream().filter(TrafficPoint::usableForFit).toList();
        List<String> notes = new ArrayList<>();
        long sizes = points.stream().mapToInt(TrafficPoint::messageBytes).distinct().count();
        if (points.size() < 3) {
            notes.add("needs at least 3 healthy runs with proxy CPU samples to fit a line and estimate its error; has " + points.size());
            return new Fits(scenario, Optional.empty(), Optional.empty(), notes);
        }
        long counted = points.stream().filter(p -> p.totalKRequestsPerSecond().isPresent()).count();
        if (counted == points.size() && points.size() >= 4) {
            try {
                CpuFit fit = fit(scenario, CpuModel.PER_REQUEST_AND_BYTE, points);
                notes.add("model: requests and bytes (every run counted the proxy's Produce and Fetch requests)");
                return new Fits(scenario, Optional.of(fit), Optional.empty(), notes);
            } catch (LeastSquares.CollinearException e) {
                notes.add("requests and bytes could not be separated (" + e.getMessage() + "): vary batching at a fixed byte rate"
                        + " (sluice omb --workloads batching); fitted without requests");
            }
        } else if (counted == points.size()) {
            notes.add("too few runs (" + points.size() + ") to fit requests and bytes separately: it takes 4; fitted without requests");
        } else {
            notes.add(String.format("model: bytes only: %d of %d runs recorded no request counts (result files from before they were counted);"
                    + " rerun to size by requests and bytes", points.size() - counted, points.size()));
        }
        if (sizes >= 2 && points.size() >= 4) {
            try {
                return new Fits(scenario, Optional.of(fit(scenario, CpuModel.PER_BYTE_AND_RECORD, points)), Optional.empty(), notes);
            } catch (LeastSquares.CollinearException e) {
                notes.add("bytes and records could not be separated (" + e.getMessage() + "); fitted per byte only");
            }
        } else {
            notes.add(sizes == 1
                    ? "one message size (" + points.get(0).messageBytes() + " bytes): per-byte and per-record cost cannot be told apart;"
                            + " run the message-size sweep to separate them"
                    : "too few points to fit bytes and records separately");
        }
        return new Fits(scenario, Optional.of(fit(scenario, CpuModel.PER_BYTE, points)),
                Optional.of(fit(scenario, CpuModel.PER_RECORD, points)), notes);
    }

    public static CpuFit fit(String scenario, CpuModel model, List<TrafficPoint> points) {
        double[][] rows = new double[points.size()][];
        double[] y = new double[points.size()];
        for (int i = 0; i < points.size(); i++) {
            TrafficPoint p = points.get(i);
            rows[i] = model.row(p.totalMBps(), p.totalKRecordsPerSecond(), p.totalKRequestsPerSecond().orElse(Double.NaN));
            y[i] = p.cpuMillicores().orElseThrow();
        }
        return new CpuFit(scenario, model, LeastSquares.fit(model.coefficientNames(), rows, y), points);
    }
}
