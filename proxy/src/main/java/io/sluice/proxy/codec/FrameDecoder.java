package io.sluice.proxy.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Splits the byte stream into Kafka frames (int32 size, then that many bytes) and passes each on as a
 * retained slice with its size prefix still in front, so an opaque frame is written upstream as is.
 * A size over the limit fails as soon as the four size bytes arrive, before anything is buffered.
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FrameDecoder.class);

    private final int maxFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        super(Integer.MAX_VALUE, 0, 4, 0, 0, true);
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (in.readableBytes() >= 4) {
            int size = in.getInt(in.readerIndex());
            if (size < 0) {
                throw new ProtocolException(ProtocolException.Reason.MALFORMED, "negative frame size " + size);
            }
            if (size > maxFrameBytes) {
                throw new ProtocolException(ProtocolException.Reason.FRAME_TOO_LARGE,
                        "frame of " + size + " bytes exceeds maxFrameBytes " + maxFrameBytes);
            }
        }
        return super.decode(ctx, in);
    }

    @Override
    protected ByteBuf extractFrame(ChannelHandlerContext ctx, ByteBuf buffer, int index, int length) {
        return buffer.retainedSlice(index, length);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, java.util.List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (in.isReadable()) {
            LOG.info("{}: peer disconnected in the middle of a frame ({} bytes of it received); nothing was forwarded",
                    ctx.channel().remoteAddress(), in.readableBytes());
        }
    }

}
