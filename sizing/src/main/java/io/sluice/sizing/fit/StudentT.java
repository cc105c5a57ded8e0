package io.sluice.sizing.fit;

/**
 * The 97.5th percentile of Student's t distribution: the multiplier that turns a standard error into the half-width
 * of a two-sided 95 % interval when the error itself is estimated from few points. With 3 degrees of freedom it is
 * 3.18, not 1.96; using the normal value would overstate what a short sweep proves.
 */
public final class StudentT {

    // t(0.975, df) for df = 1..30, from standard tables.
    private static final double[] TABLE = {
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
            2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    private static final double Z = 1.959964;

    private StudentT() {
    }

    public static double quantile975(int degreesOfFreedom) {
        if (degreesOfFreedom < 1) {
            throw new IllegalArgumentException("degrees of freedom must be at least 1, not " + degreesOfFreedom);
        }
        if (degreesOfFreedom <= TABLE.length) {
            return TABLE[degreesOfFreedom - 1];
        }
        // Cornish-Fisher expansion around the normal quantile; within 1e-4 of the exact value beyond 30.
        double v = degreesOfFreedom;
        double z3 = Z * Z * Z;
        double z5 = z3 * Z * Z;
        return Z + (z3 + Z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * Z) / (96 * v * v);
    }
}
