package io.sluice.app.bench.bridge;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * One bench subscriber connection: sends {@code connect} once upgraded, on {@code connected} subscribes to its one
 * endpoint, and from then on reads only the header of each server frame and, for {@code message}s and
 * {@code delta}s, the stamp. No JSON is parsed on the message path and frames are read in place
 * ({@link WebSocketClientDecoder}), so a message costs no allocation here.
 */
final class SubscriberConnection extends WebSocketClientDecoder {

    // Every server message starts {"type":" (the bridge writes the type first); the byte after tells the kinds apart.
    private static final int TYPE_AT = 9;

    private final BenchSubscribers run;
    private final int endpoint;
    private boolean subscribed;

    SubscriberConnection(BenchSubscribers run, int endpoint) {
        this.run = run;
        this.endpoint = endpoint;
    }

    @Override
    protected ByteBuf upgradeRequest() {
        return run.upgradeRequest();
    }

    @Override
    protected void upgraded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(run.connectFrame());
    }

    @Override
    protected void serverClose(int code) {
        run.onServerClose(code);
    }

    @Override
    protected void failed(String why) {
        run.onError(why);
    }

    @Override
    protected void wireBytes(int received) {
        run.onWireBytes(received);
    }

    @Override
    protected void text(ChannelHandlerContext ctx, ByteBuf in, int start, int length) {
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

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        run.onClosed(subscribed);
        super.channelInactive(ctx);
    }
}
