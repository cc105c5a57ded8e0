package io.sluice.app.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * One bench subscriber connection, as its whole pipeline: bytes in, nothing out to later handlers. It sends the
 * upgrade request, waits for 101, sends {@code connect}, on {@code connected} subscribes to its one endpoint, and from
 * then on reads only the header of each server frame and, for {@code message}s and {@code delta}s, the stamp.
 * No JSON is parsed on the message path and frames are read in place, so a message costs no allocation here.
 */
final class SubscriberConnection extends ByteToMessageDecoder {

    private static final int MAX_RESPONSE_HEAD = 8192;
    private static final int OPCODE_TEXT = 1;
    private static final int OPCODE_CLOSE = 8;
    // Every server message starts {"type":" (the bridge writes the type first); the byte after tells the kinds apart.
    private static final int TYPE_AT = 9;

    private final BenchSubscribers run;
    private final int endpoint;
    private boolean upgraded;
    private boolean subscribed;

    SubscriberConnection(BenchSubscribers run, int endpoint) {
        this.run = run;
        this.endpoint = endpoint;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(run.upgradeRequest().duplicate());
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
                run.onServerClose(length >= 2 ? in.getUnsignedShort(start + header) : 1005);
                ctx.close();
            }
            run.onWireBytes(header + length);
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
        ctx.writeAndFlush(run.connectFrame());
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

    private void text(ChannelHandlerContext ctx, ByteBuf in, int start, int length) {
        if (length > TYPE_AT + 1 && in.getByte(start + TYPE_AT + 1) == 'e') {
            byte kind = in.getByte(start + TYPE_AT);
            if (kind == 'm') {
                run.onMessage(in, start, length);
                return;
            }
            if (kind == 'd') {
                run.onDelta(in, start, length);
                return;
            }
        }
        // Replies and notices are rare: read as text.
        String json = in.toString(start, length, StandardCharsets.UTF_8);
        if (json.startsWith("{\"type\":\"connected\"")) {
            ctx.writeAndFlush(run.subscribeFrame(endpoint));
        } else if (json.startsWith("{\"type\":\"subscribed\"")) {
            subscribed = true;
            run.onSubscribed();
        } else {
            run.onOtherMessage(json);
        }
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        run.onError(why);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        run.onClosed(subscribed);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause.toString());
    }
}
