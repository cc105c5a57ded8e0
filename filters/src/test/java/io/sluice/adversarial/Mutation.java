package io.sluice.adversarial;

import java.util.HexFormat;

/**
 * One hostile request: the bytes to send (size prefix included) and how they were made.
 *
 * @param kind        the mutation operator
 * @param description what exactly was changed, for the reproducer
 * @param frame       the bytes written to the socket
 * @param halfClose   shut the write side after sending: the frame claims more bytes than follow
 * @param framingKept whether the size prefix still matches the bytes sent, so responses can be matched to requests
 */
record Mutation(Kind kind, String description, byte[] frame, boolean halfClose, boolean framingKept) {

    enum Kind {
        BIT_FLIP, INTERESTING_BYTES, TRUNCATE, APPEND, DUPLICATE_SLICE, SIZE_PREFIX, LENGTH_FIELD, RECORD_BATCH,
        HEADER, DUPLICATE_ELEMENT, FIELD_VALUE
    }

    short apiKey() {
        return frame.length >= 6 ? (short) (((frame[4] & 0xff) << 8) | (frame[5] & 0xff)) : -1;
    }

    short apiVersion() {
        return frame.length >= 8 ? (short) (((frame[6] & 0xff) << 8) | (frame[7] & 0xff)) : -1;
    }

    /** The correlation id the proxy will read from these bytes, if they hold one. */
    Integer correlationId() {
        return frame.length >= 12 ? ((frame[8] & 0xff) << 24) | ((frame[9] & 0xff) << 16) | ((frame[10] & 0xff) << 8) | (frame[11] & 0xff) : null;
    }

    /** The frame in hex, cut at 4 KiB: enough to replay most findings by hand. */
    String hex() {
        int shown = Math.min(frame.length, 4096);
        return HexFormat.of().formatHex(frame, 0, shown) + (shown < frame.length ? "...(" + frame.length + " bytes)" : "");
    }
}
