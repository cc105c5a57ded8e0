package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * A bench WebSocket client connection as its whole pipeline: bytes in, nothing out to later handlers. It sends the
 * upgrade request, waits for 101, then reads server frames in place and hands each text frame's bytes to the subclass
 * (a subscriber, a publisher) without copying or parsing them. Netty's client handshaker and frame codecs would cost
 * every one of tens of thousands of connections several handlers and buffers; the bench needs none of what they do.
 */
abstract class ClientWebSocket extends ByteToMessageDecoder {

    private static final int MAX_RESPONSE_HEAD = 8192;
    private static final int OPCODE_TEXT = 1;
    private static final int OPCODE_CLOSE = 8;
    /** Every server message starts {"type":" (the bridge writes the type first); the bytes after tell the kinds apart. */
    static final int TYPE_AT = 9;

    private final ByteBuf upgradeRequest;
    private boolean upgraded;

    /** @param upgradeRequest shared by every connection of a run; sent as a duplicate */
    ClientWebSocket(ByteBuf upgradeRequest) {
        this.upgradeRequest = upgradeRequest;
    }

    /** The upgrade succeeded: the connection may send its first frame (a {@code connect}). */
    abstract void onUpgraded(ChannelHandlerContext ctx);

    /** A text frame's JSON, {@code length} bytes at {@code start} of {@code in}; valid only during the call. */
    abstract void onText(ChannelHandlerContext ctx, ByteBuf in, int start, int length);

    /** The server closed with {@code code} (1005: no code). */
    abstract void onServerClose(int code);

    /** Bytes of one frame, header included; counted only by the clients that report bytes on the wire. */
    void onWireBytes(int bytes) {
    }

    /** Something went wrong; the connection is being closed. */
    abstract void onError(String why);

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(upgradeRequest.duplicate());
        super.channelActive(ctx);
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
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
                onText(ctx, in, start + header, length);
            } else if (opcode == OPCODE_CLOSE) {
                onServerClose(length >= 2 ? in.getUnsignedShort(start + header) : 1005);
                ctx.close();
            }
            onWireBytes(header + length);
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
        onUpgraded(ctx);
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

    final void fail(ChannelHandlerContext ctx, String why) {
        onError(why);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause.toString());
    }
}
