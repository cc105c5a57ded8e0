package io.sluice.sizing.fit;

import java.util.List;

/**
 * Ordinary least squares through the normal equations. The models here have at most three coefficients in units
 * of similar size (millicores, MB/s, thousands of records/s), where solving (XᵀX)β = Xᵀy directly is accurate; a
 * near-singular XᵀX means two columns say the same thing, and is reported rather than solved.
 */
public final class LeastSquares {

    private LeastSquares() {
    }

    /**
     * @param rows one row per point, one column per coefficient (a column of ones for an intercept)
     * @throws CollinearException  when the columns cannot be told apart by these points
     * @throws IllegalArgumentException with fewer points than coefficients + 1: no error could be estimated
     */
    public static LinearFit fit(List<String> names, double[][] rows, double[] y) {
        int n = rows.length;
        int p = names.size();
        if (n != y.length) {
            throw new IllegalArgumentException(n + " rows but " + y.length + " values");
        }
        if (n <= p) {
            throw new IllegalArgumentException("need at least " + (p + 1) + " points to fit " + p + " coefficients and estimate their error, have " + n);
        }
        double[][] xtx = new double[p][p];
        double[] xty = new double[p];
        for (int r = 0; r < n; r++) {
            if (rows[r].length != p) {
                throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " columns, expected " + p);
            }
            for (int i = 0; i < p; i++) {
                xty[i] += rows[r][i] * y[r];
                for (int j = 0; j < p; j++) {
                    xtx[i][j] += rows[r][i] * rows[r][j];
                }
            }
        }
        double[][] inverse = invert(xtx, names);
        double[] beta = new double[p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                beta[i] += inverse[i][j] * xty[j];
            }
        }
        double mean = 0;
        for (double v : y) {
            mean += v / n;
        }
        double rss = 0;
        double tss = 0;
        double[] fittedValues = new double[n];
        for (int r = 0; r < n; r++) {
            double fitted = 0;
            for (int i = 0; i < p; i++) {
                fitted += beta[i] * rows[r][i];
            }
            fittedValues[r] = fitted;
            rss += (y[r] - fitted) * (y[r] - fitted);
            tss += (y[r] - mean) * (y[r] - mean);
        }
        int dof = n - p;
        double variance = rss / dof;
        double[][] covariance = new double[p][p];
        double[] se = new double[p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                covariance[i][j] = variance * inverse[i][j];
            }
            se[i] = Math.sqrt(Math.max(0, covariance[i][i]));
        }
        double r2 = tss == 0 ? 1 : 1 - rss / tss;
        return new LinearFit(List.copyOf(names), beta, se, covariance, r2, Math.sqrt(variance), n, dof, y.clone(), fittedValues);
    }

    /** Gauss-Jordan with partial pivoting, scaled so that "singular" does not depend on the columns' units. */
    private static double[][] invert(double[][] matrix, List<String> names) {
        int p = matrix.length;
        double[] scale = new double[p];
        for (int i = 0; i < p; i++) {
            scale[i] = Math.sqrt(matrix[i][i]);
            if (scale[i] == 0) {
                throw new CollinearException("column '" + names.get(i) + "' is zero at every point");
            }
        }
        // Work on the correlation-like matrix D⁻¹AD⁻¹ (unit diagonal), then undo the scaling.
        double[][] a = new double[p][2 * p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                a[i][j] = matrix[i][j] / (scale[i] * scale[j]);
            }
            a[i][p + i] = 1;
        }
        for (int col = 0; col < p; col++) {
            int pivot = col;
            for (int r = col + 1; r < p; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            if (Math.abs(a[pivot][col]) < 1e-10) {
                throw new CollinearException("column '" + names.get(col) + "' is a combination of the others at these points");
            }
            double[] swap = a[col];
            a[col] = a[pivot];
            a[pivot] = swap;
            double d = a[col][col];
            for (int j = 0; j < 2 * p; j++) {
                a[col][j] /= d;
            }
            for (int r = 0; r < p; r++) {
                if (r != col && a[r][col] != 0) {
                    double factor = a[r][col];
                    for (int j = 0; j < 2 * p; j++) {
                        a[r][j] -= factor * a[col][j];
                    }
                }
            }
        }
        double[][] inverse = new double[p][p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                inverse[i][j] = a[i][p + j] / (scale[i] * scale[j]);
            }
        }
        return inverse;
    }

    /** The points cannot separate the effects of two columns (say, bytes and records at a single message size). */
    public static final class CollinearException extends RuntimeException {
        public CollinearException(String message) {
            super(message);
        }
    }
}
