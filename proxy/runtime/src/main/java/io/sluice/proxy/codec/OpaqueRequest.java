package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiKeys;

import io.netty.buffer.ByteBuf;

/**
 * A request no filter wanted decoded: its frame, length prefix included, is forwarded as it arrived
 * except for the correlation id, which is patched in place.
 */
public final class OpaqueRequest implements RequestFrame {

    /** Offset of the correlation id in a request frame: length(4) api_key(2) api_version(2). */
    static final int CORRELATION_ID_OFFSET = 8;

    private final ApiKeys apiKey;
    private final short apiVersion;
    private final int correlationId;
    private final boolean hasResponse;
    private ByteBuf frame;

    public OpaqueRequest(ApiKeys apiKey, short apiVersion, int correlationId, boolean hasResponse, ByteBuf frame) {
        this.apiKey = apiKey;
        this.apiVersion = apiVersion;
        this.correlationId = correlationId;
        this.hasResponse = hasResponse;
        this.frame = frame;
    }

    @Override
    public ApiKeys apiKey() {
        return apiKey;
    }

    @Override
    public short apiVersion() {
        return apiVersion;
    }

    @Override
    public int correlationId() {
        return correlationId;
    }

    @Override
    public boolean hasResponse() {
        return hasResponse;
    }

    /** Hands the frame over for writing with the upstream correlation id; the caller now owns it. */
    public ByteBuf takeFrame(int upstreamCorrelationId) {
        ByteBuf taken = frame;
        frame = null;
        taken.setInt(taken.readerIndex() + CORRELATION_ID_OFFSET, upstreamCorrelationId);
        return taken;
    }

    @Override
    public void release() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }

    @Override
    public String toString() {
        return apiKey + " v" + apiVersion + " #" + correlationId + " (opaque)";
    }
}
