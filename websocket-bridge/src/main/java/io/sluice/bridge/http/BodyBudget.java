package io.sluice.bridge.http;

import java.util.function.BooleanSupplier;

/**
 * The request-body bytes one HTTP/2 connection may have on their way in across all its streams: each stream whose
 * request has a body reserves what it may buffer (its {@code Content-Length}, or {@code server.maxInboundMessageBytes}
 * when it announces none, at most that) before it is read, and gives it back once its request is complete or the stream
 * ends. A stream that does not fit is refused ({@link StreamRequest}). While the connection is still in the handshake
 * pool (no authenticated request yet) the budget is {@code server.maxInboundMessageBytes}: one body at a time, as an
 * HTTP/1.1 connection reads them; after it, {@code max(requests.publishBytesInFlight, server.maxInboundMessageBytes)},
 * the bytes the connection may have waiting for Kafka. Event loop of the connection only.
 */
public final class BodyBudget {

    private final BooleanSupplier handshaking;
    private final long beforeAuthentication;
    private final long afterAuthentication;
    private long reserved;

    /**
     * @param handshaking          whether the connection is still in the handshake pool
     * @param maxBodyBytes         server.maxInboundMessageBytes
     * @param publishBytesInFlight requests.publishBytesInFlight
     */
    public BodyBudget(BooleanSupplier handshaking, long maxBodyBytes, long publishBytesInFlight) {
        this.handshaking = handshaking;
        this.beforeAuthentication = maxBodyBytes;
        this.afterAuthentication = Math.max(maxBodyBytes, publishBytesInFlight);
    }

    /** Reserves {@code bytes}, or returns false when the connection's budget does not hold them. */
    boolean reserve(long bytes) {
        long budget = handshaking.getAsBoolean() ? beforeAuthentication : afterAuthentication;
        if (reserved + bytes > budget) {
            return false;
        }
        reserved += bytes;
        return true;
    }

    void release(long bytes) {
        reserved -= bytes;
    }
}
