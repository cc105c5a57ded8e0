package io.sluice.app.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * The client side of one bench WebSocket, as its whole pipeline: it sends the upgrade request
 * ({@link ClientFrames#upgradeRequest}), waits for 101, then splits the server's frames in place and hands each text
 * frame's bytes to the subclass without copying them. What the subscriber sends and what it reads in a frame is the
 * subclass's: the fan-out bench's {@link SubscriberConnection} reads only stamps, the failover scenario's
 * {@link RecoveringConnection} reads positions.
 */
abstract class WebSocketClientDecoder extends ByteToMessageDecoder {

    private static final int MAX_RESPONSE_HEAD = 8192;
    private static final int OPCODE_TEXT = 1;
    private static final int OPCODE_CLOSE = 8;

    private boolean upgraded;

    /** The upgrade request to send when the connection opens; written as a duplicate, so it can be shared. */
    protected abstract ByteBuf upgradeRequest();

    /** 101 arrived: the WebSocket is open. */
    protected abstract void upgraded(ChannelHandlerContext ctx);

    /** A text frame's payload: {@code length} bytes at {@code start} of {@code in}, valid only during the call. */
    protected abstract void text(ChannelHandlerContext ctx, ByteBuf in, int start, int length);

    /** The server sent a close frame with {@code code} (1005 when it carried none); the connection is closed after. */
    protected abstract void serverClose(int code);

    /** Something went wrong on this connection; it is closed after. */
    protected abstract void failed(String why);

    /** Every frame's bytes as they came, header included. */
    protected void wireBytes(int received) {
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(upgradeRequest().duplicate());
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!upgraded && !upgrade(ctx, in)) {
            return;
        }
        while (in.readableBytes() >= 2) {
            int start = in.readerIndex();
            int opcode = in.getByte(start) & 0x0f;
            int length = in.getByte(start + 1) & 0x7f;
            int header = 2;
            if (length == 126) {
                if (in.readableBytes() < 4) {
                    return;
                }
                length = in.getUnsignedShort(start + 2);
                header = 4;
            } else if (length == 127) {
                if (in.readableBytes() < 10) {
                    return;
                }
                long longLength = in.getLong(start + 2);
                if (longLength > Integer.MAX_VALUE - 10) {
                    fail(ctx, "frame of " + longLength + " bytes");
                    return;
                }
                length = (int) longLength;
                header = 10;
            }
            if (in.readableBytes() < header + length) {
                return;
            }
            if (opcode == OPCODE_TEXT) {
                text(ctx, in, start + header, length);
            } else if (opcode == OPCODE_CLOSE) {
                serverClose(length >= 2 ? in.getUnsignedShort(start + header) : 1005);
                ctx.close();
            }
            wireBytes(header + length);
            in.skipBytes(header + length);
        }
    }

    private boolean upgrade(ChannelHandlerContext ctx, ByteBuf in) {
        int end = headEnd(in);
        if (end < 0) {
            if (in.readableBytes() > MAX_RESPONSE_HEAD) {
                fail(ctx, "no end of the HTTP response head in " + MAX_RESPONSE_HEAD + " bytes");
            }
            return false;
        }
        String head = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.US_ASCII);
        if (!head.startsWith("HTTP/1.1 101")) {
            fail(ctx, "upgrade refused: " + head.lines().findFirst().orElse(""));
            return false;
        }
        in.readerIndex(end + 4);
        upgraded = true;
        upgraded(ctx);
        return true;
    }

    private static int headEnd(ByteBuf in) {
        for (int i = in.readerIndex(); i + 3 < in.writerIndex(); i++) {
            if (in.getByte(i) == '\r' && in.getByte(i + 1) == '\n' && in.getByte(i + 2) == '\r' && in.getByte(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }

    protected final void fail(ChannelHandlerContext ctx, String why) {
        failed(why);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause.toString());
    }
}
