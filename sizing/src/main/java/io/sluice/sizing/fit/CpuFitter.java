package io.sluice.sizing.fit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.sizing.points.TrafficPoint;

/**
 * Fits a scenario's healthy points. With two or more message sizes the bytes-and-records model is the one to size
 * with; with one size the per-byte model is, and the per-record model is reported beside it, the same data seen
 * per record.
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
            rows[i] = model.row(p.totalMBps(), p.messageBytes());
            y[i] = p.cpuMillicores().orElseThrow();
        }
        return new CpuFit(scenario, model, LeastSquares.fit(model.coefficientNames(), rows, y), points);
    }
}
