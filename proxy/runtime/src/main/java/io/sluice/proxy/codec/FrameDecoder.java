package io.sluice.proxy.codec;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Splits the byte stream into Kafka frames (int32 size, then that many bytes) and passes each on as a
 * retained slice with its size prefix still in front, so an opaque frame is written upstream as is.
 * A size over the limit fails as soon as the four size bytes arrive, before anything is buffered.
 *
 * <p>A client decoder may start with a lower limit for unauthenticated clients, lifted with
 * {@link #liftPreAuthenticationLimit()} once the client has authenticated.</p>
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

    private final int maxFrameBytes;
    private int preAuthenticationMaxFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, 0);
    }

    /** @param preAuthenticationMaxFrameBytes the limit until {@link #liftPreAuthenticationLimit()}; 0 for none */
    public FrameDecoder(int maxFrameBytes, int preAuthenticationMaxFrameBytes) {
        super(Integer.MAX_VALUE, 0, 4, 0, 0, true);
        this.maxFrameBytes = maxFrameBytes;
        this.preAuthenticationMaxFrameBytes = preAuthenticationMaxFrameBytes;
    }

    /** From now on frames up to {@code maxFrameBytes} are accepted. Call on the channel's event loop. */
    public void liftPreAuthenticationLimit() {
        preAuthenticationMaxFrameBytes = 0;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (in.readableBytes() >= 4) {
            int size = in.getInt(in.readerIndex());
            if (size < 0) {
                throw new ProtocolException(ProtocolException.Reason.MALFORMED, "negative frame size " + size);
            }
            if (preAuthenticationMaxFrameBytes > 0 && size > preAuthenticationMaxFrameBytes) {
                throw new ProtocolException(ProtocolException.Reason.PRE_AUTHENTICATION_FRAME_TOO_LARGE, "frame of " + size
                        + " bytes before authentication exceeds network.preAuthentication.maxFrameBytes " + preAuthenticationMaxFrameBytes);
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
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (in.isReadable()) {
            LOG.info("{}: peer disconnected in the middle of a frame ({} bytes of it received); nothing was forwarded",
                    ctx.channel().remoteAddress(), in.readableBytes());
        }
    }

}
