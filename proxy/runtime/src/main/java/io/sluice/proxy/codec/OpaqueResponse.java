package io.sluice.proxy.codec;

import io.netty.buffer.ByteBuf;

/** A response forwarded as the broker sent it, with the client's correlation id already patched in. */
public final class OpaqueResponse implements ResponseFrame {

    /** Offset of the correlation id in a response frame: length(4). */
    static final int CORRELATION_ID_OFFSET = 4;

    private final int correlationId;
    private ByteBuf frame;

    public OpaqueResponse(int correlationId, ByteBuf frame) {
        this.correlationId = correlationId;
        this.frame = frame;
    }

    @Override
    public int correlationId() {
        return correlationId;
    }

    /** Hands the frame over for writing; the caller now owns it. */
    public ByteBuf takeFrame() {
        ByteBuf taken = frame;
        frame = null;
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
        return "response #" + correlationId + " (opaque)";
    }
}
