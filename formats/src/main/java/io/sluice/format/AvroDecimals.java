package io.sluice.format;

import java.math.BigDecimal;
import java.math.BigInteger;

import org.apache.avro.LogicalTypes;

/**
 * Avro {@code decimal} values as exact decimal text, with every size bounded before the work it implies
 * (docs/bridge-formats.md, "Decimals"). Avro's own validation accepts any precision on {@code bytes} and any scale up to
 * it, so a registered schema may declare {@code precision} and {@code scale} 2^31-1, and a one-byte value would then
 * ask for a 2^31-character string; and nothing checks an unscaled value against its precision, so a 1 MB value of a
 * {@code decimal(38,2)} would be a multi-million-digit {@code BigInteger.toString}. Here:
 * <ul>
 * <li>a schema's precision must be at most {@link #MAX_PRECISION} and its scale between 0 and its precision (the Avro
 *     specification's rule), else every value of it is undecodable;</li>
 * <li>a value's unscaled bytes, less redundant sign bytes (a {@code fixed} is sign-extended to its size), may be no
 *     longer than its precision's digits need, checked by length before any number is built; then its digits are
 *     checked exactly. So one value costs at most a {@code BigInteger} of ~416 bytes and a text of ~2,000 characters.</li>
 * </ul>
 */
final class AvroDecimals {

    /**
     * The largest precision the bridge decodes or encodes. PostgreSQL's {@code numeric} allows 1000 digits, the largest
     * of the common sources (Debezium, JDBC connectors write their column's precision); Java's and most databases' own
     * decimals stop at 38. At 1000 digits one value's conversion is microseconds.
     */
    static final int MAX_PRECISION = 1000;

    private static final double BITS_PER_DIGIT = Math.log(10) / Math.log(2);

    private AvroDecimals() {
    }

    /** Why a decimal schema cannot be used, or null when it can. */
    static String unusable(LogicalTypes.Decimal decimal) {
        int precision = decimal.getPrecision();
        int scale = decimal.getScale();
        if (precision < 1 || precision > MAX_PRECISION) {
            return "decimal precision " + precision + " is beyond the bridge's maximum of " + MAX_PRECISION;
        }
        if (scale < 0 || scale > precision) {
            return "decimal scale " + scale + " is not between 0 and the precision " + precision;
        }
        return null;
    }

    /** The exact decimal text of a big-endian two's-complement unscaled value. */
    static String toText(byte[] bytes, LogicalTypes.Decimal decimal) throws DecodeException {
        String unusable = unusable(decimal);
        if (unusable != null) {
            throw new DecodeException(unusable);
        }
        int precision = decimal.getPrecision();
        int start = 0;
        // Sign extension carries no digits: 00 before a byte with its top bit clear, ff before one with it set.
        while (start < bytes.length - 1 && ((bytes[start] == 0 && bytes[start + 1] >= 0) || (bytes[start] == -1 && bytes[start + 1] < 0))) {
            start++;
        }
        int significant = bytes.length - start;
        if (significant > maxBytes(precision)) {
            throw new DecodeException("a decimal value of " + significant + " bytes has more than " + precision + " digits");
        }
        BigInteger unscaled = significant == 0 ? BigInteger.ZERO : new BigInteger(bytes, start, significant);
        if (unscaled.abs().compareTo(BigInteger.TEN.pow(precision)) >= 0) {
            throw new DecodeException("a decimal value has more than " + precision + " digits");
        }
        return new BigDecimal(unscaled, decimal.getScale()).toPlainString();
    }

    /** Bytes enough for any unscaled value of {@code precision} digits, with its sign bit (rounded up: the exact check follows). */
    static int maxBytes(int precision) {
        return (int) Math.ceil((precision * BITS_PER_DIGIT + 1) / 8) + 1;
    }
}
