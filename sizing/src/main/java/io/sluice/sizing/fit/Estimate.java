package io.sluice.sizing.fit;

/** A value with the half-width of its two-sided 95 % interval. */
public record Estimate(double value, double halfWidth95) {

    public double upper() {
        return value + halfWidth95;
    }

    public double lower() {
        return value - halfWidth95;
    }
}
