package io.sluice.sizing.report;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.points.TrafficPoint;

/**
 * How far each fitted run lies from the fit: what the reports show so a reader can judge the model, not only its
 * coefficients. A residual is measured minus fitted; relative, as a share of what was measured.
 */
record FitResiduals(List<Row> rows, double rmsMillicores, double relativeRms) {

    record Row(String workload, double totalMBps, OptionalDouble requestsPerSecond, double measured, double fitted) {

        double residual() {
            return measured - fitted;
        }

        double relative() {
            return measured == 0 ? Double.NaN : residual() / measured;
        }
    }

    static FitResiduals of(CpuFit fit) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < fit.points().size(); i++) {
            TrafficPoint p = fit.points().get(i);
            OptionalDouble requests = p.totalKRequestsPerSecond();
            rows.add(new Row(p.workload(), p.totalMBps(),
                    requests.isPresent() ? OptionalDouble.of(requests.getAsDouble() * 1000) : OptionalDouble.empty(),
                    fit.fit().observed()[i], fit.fit().fitted()[i]));
        }
        return new FitResiduals(rows, fit.fit().rmsError(), fit.fit().relativeRmsError());
    }
}
