package io.sluice.sizing.fit;

import java.util.List;

/**
 * An ordinary least-squares fit y = x·β and what is known about its error: the coefficients' standard errors from
 * the residual variance (σ² (XᵀX)⁻¹), the 95 % half-widths with Student's t, and R².
 *
 * @param names              one per coefficient, in column order
 * @param covariance         of the coefficients
 * @param residualStdError   the typical distance of a point from the fit, in y's unit
 * @param degreesOfFreedom   points minus coefficients
 * @param observed           y at each point, in the order of the rows
 * @param fitted             the fit's value at each point
 */
public record LinearFit(List<String> names,
                        double[] coefficients,
                        double[] standardErrors,
                        double[][] covariance,
                        double rSquared,
                        double residualStdError,
                        int points,
                        int degreesOfFreedom,
                        double[] observed,
                        double[] fitted) {

    /** Observed minus fitted at point {@code index}. */
    public double residual(int index) {
        return observed[index] - fitted[index];
    }

    /** The root of the mean squared residual: how far, typically, a point lies from the fit, in y's unit. */
    public double rmsError() {
        double sum = 0;
        for (int i = 0; i < observed.length; i++) {
            sum += residual(i) * residual(i);
        }
        return Math.sqrt(sum / observed.length);
    }

    /** {@link #rmsError()} as a fraction of the mean observed y. */
    public double relativeRmsError() {
        double mean = 0;
        for (double y : observed) {
            mean += y / observed.length;
        }
        return mean == 0 ? Double.NaN : rmsError() / Math.abs(mean);
    }

    public double coefficient(int index) {
        return coefficients[index];
    }

    /** Half-width of the coefficient's two-sided 95 % interval. */
    public double halfWidth95(int index) {
        return StudentT.quantile975(degreesOfFreedom) * standardErrors[index];
    }

    public double predict(double[] x) {
        double y = 0;
        for (int i = 0; i < x.length; i++) {
            y += coefficients[i] * x[i];
        }
        return y;
    }

    /** Half-width of the 95 % interval of the fitted mean at x: the fit's own uncertainty there. */
    public double predictionHalfWidth95(double[] x) {
        return StudentT.quantile975(degreesOfFreedom) * Math.sqrt(quadratic(x));
    }

    /** Half-width of the 95 % interval of g(β) for a function with gradient {@code gradient} at β (delta method). */
    public double halfWidth95Of(double[] gradient) {
        return StudentT.quantile975(degreesOfFreedom) * Math.sqrt(quadratic(gradient));
    }

    private double quadratic(double[] v) {
        double sum = 0;
        for (int i = 0; i < v.length; i++) {
            for (int j = 0; j < v.length; j++) {
                sum += v[i] * covariance[i][j] * v[j];
            }
        }
        return Math.max(0, sum);
    }
}
