package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;

/**
 * The send time that benchpub writes at the start of every payload and benchsub reads back: nanoseconds since this
 * JVM's clock origin, as {@value #DIGITS} ASCII digits and a space, then filler. Publisher and subscribers run in the
 * same JVM, so one monotonic clock ({@link System#nanoTime()}) serves both ends and needs no synchronisation; ASCII
 * keeps the payload a {@code text} message, so a subscriber reads the stamp without decoding base64 or parsing JSON.
 */
final class LatencyStamp {

    static final int DIGITS = 19;
    /** The smallest payload that holds a stamp. */
    static final int MIN_PAYLOAD = DIGITS + 1;

    private static final long ORIGIN = System.nanoTime();

    private LatencyStamp() {
    }

    /** Now on the shared clock; never negative. */
    static long now() {
        return System.nanoTime() - ORIGIN;
    }

    /** A payload of {@code size} bytes starting with {@code stamp}. */
    static byte[] payload(long stamp, int size) {
        byte[] payload = new byte[size];
        if (size > DIGITS) {
            Arrays.fill(payload, DIGITS, size, (byte) 'x');
            payload[DIGITS] = ' ';
        }
        long rest = stamp;
        for (int i = DIGITS - 1; i >= 0; i--) {
            payload[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return payload;
    }

    /** The stamp as the {@value #DIGITS} digits a payload carries. */
    static String digits(long stamp) {
        return new String(payload(stamp, DIGITS), StandardCharsets.US_ASCII);
    }

    /**
     * The stamp right after the first {@code marker} in {@code [from, to)} of {@code buf}, or -1 when there is none.
     * How a subscriber finds the stamp of a JSON value or a patch without parsing it.
     */
    static long find(ByteBuf buf, int from, int to, byte[] marker) {
        int at = indexOf(buf, from, to, marker);
        return at < 0 || at + marker.length + DIGITS > to ? -1 : read(buf, at + marker.length);
    }

    /** Where {@code marker} first starts in {@code [from, to)} of {@code buf}, or -1. */
    static int indexOf(ByteBuf buf, int from, int to, byte[] marker) {
        byte first = marker[0];
        for (int i = from; i + marker.length <= to; i++) {
            if (buf.getByte(i) != first) {
                continue;
            }
            int j = 1;
            while (j < marker.length && buf.getByte(i + j) == marker[j]) {
                j++;
            }
            if (j == marker.length) {
                return i;
            }
        }
        return -1;
    }

    /** The stamp at the start of a payload read as text, or -1 if it does not start with one. */
    static long read(String payload) {
        if (payload.length() < DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < DIGITS; i++) {
            int digit = payload.charAt(i) - '0';
            if (digit < 0 || digit > 9) {
                return -1;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    /** The stamp written at {@code index}, or -1 if no stamp is there. */
    static long read(ByteBuf buf, int index) {
        if (buf.writerIndex() < index + DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = index; i < index + DIGITS; i++) {
            int digit = buf.getByte(i) - '0';
            if (digit < 0 || digit > 9) {
                return -1;
            }
            value = value * 10 + digit;
        }
        return value;
    }
}
