package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * One bench subscriber connection: after the upgrade ({@link ClientWebSocket}) it sends {@code connect}, on
 * {@code connected} subscribes to its one endpoint, and from then on reads only the header of each server frame and,
 * for {@code message}s and {@code delta}s, the stamp. No JSON is parsed on the message path and frames are read in
 * place, so a message costs no allocation here.
 */
final class SubscriberConnection extends ClientWebSocket {

    private final BenchSubscribers run;
    private final int endpoint;
    private boolean subscribed;

    SubscriberConnection(BenchSubscribers run, int endpoint) {
        super(run.upgradeRequest());
        this.run = run;
        this.endpoint = endpoint;
    }

    @Override
    void onUpgraded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(run.connectFrame());
    }

    @Override
    void onText(ChannelHandlerContext ctx, ByteBuf in, int start, int length) {
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
    void onServerClose(int code) {
        run.onServerClose(code);
    }

    @Override
    void onWireBytes(int bytes) {
        run.onWireBytes(bytes);
    }

    @Override
    void onError(String why) {
        run.onError(why);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        run.onClosed(subscribed);
        super.channelInactive(ctx);
    }
}
