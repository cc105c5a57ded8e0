package io.sluice.sizing.report;

import java.util.Locale;

import io.sluice.sizing.fit.Estimate;

/** How numbers are written in every report: an estimate with as many decimals as its interval supports. */
final class Figures {

    private Figures() {
    }

    /** {@code 2.41 ± 0.30}: the half-width to two significant digits, the value to the same decimal place. */
    static String estimate(Estimate e) {
        int decimals = decimals(e.halfWidth95());
        return String.format(Locale.ROOT, "%,." + decimals + "f ± %,." + decimals + "f", e.value(), e.halfWidth95());
    }

    static String number(double value, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    static String mib(long bytes) {
        return (bytes >> 20) + "Mi";
    }

    private static int decimals(double halfWidth) {
        if (!(halfWidth > 0) || !Double.isFinite(halfWidth)) {
            return 2;
        }
        int magnitude = (int) Math.floor(Math.log10(halfWidth));
        return Math.max(0, Math.min(4, 1 - magnitude));
    }
}
