package io.sluice.bench.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;

/**
 * One connection of a {@link RecoveringClient}, as a client library's would be: {@code connect}, then
 * {@code subscribe} with the client's positions in {@code recover}, then every {@code message} read whole for its
 * {@code epoch} and {@code seq} (and the stamp, for latency). Unlike the fan-out bench's {@link SubscriberConnection},
 * which reads only stamps, every message is parsed: the failover scenario checks each client's deliveries one by one,
 * and carries a few thousand clients rather than tens of thousands.
 */
final class RecoveringConnection extends ClientWebSocket {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SUBSCRIBE_ID = 2;

    private final RecoveringSubscribers run;
    private final RecoveringClient client;

    RecoveringConnection(RecoveringSubscribers run, RecoveringClient client) {
        super(run.upgradeRequest());
        this.run = run;
        this.client = client;
    }

    @Override
    void onUpgraded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(run.connectFrame());
    }

    @Override
    void onText(ChannelHandlerContext ctx, ByteBuf in, int start, int length) {
        JsonNode json;
        try {
            json = JSON.readTree(new ByteBufInputStream(in.slice(start, length)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        switch (json.path("type").asText()) {
            case "message" -> {
                client.message(json.path("epoch").asText(), json.path("seq").asLong());
                run.onMessage(LatencyStamp.read(json.path("payload").asText()));
            }
            case "connected" -> {
                client.connected(json.path("node").asText());
                subscribe(ctx);
            }
            case "subscribed" -> {
                Map<String, Long> positions = new LinkedHashMap<>();
                json.path("positions").forEach(p -> positions.put(p.path("epoch").asText(), p.path("seq").asLong()));
                client.subscribed(positions, System.nanoTime());
            }
            case "gap" -> {
                client.gap();
                run.problem("client " + client.index() + ": " + json);
            }
            case "error" -> {
                String code = json.path("code").asText();
                if (json.path("id").asInt() == SUBSCRIBE_ID && (code.equals("busy") || code.equals("rate_limited"))) {
                    // Nothing was subscribed: the same subscribe again later, as the protocol asks.
                    run.later(ctx.channel().eventLoop(), json.path("retryAfterMs").asLong(0), client, () -> subscribe(ctx));
                } else {
                    run.problem("client " + client.index() + ": " + json);
                }
            }
            default -> run.onOther();
        }
    }

    private void subscribe(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            String recover = client.recoverJson();
            ctx.writeAndFlush(ClientFrames.text("{\"type\":\"subscribe\",\"id\":" + SUBSCRIBE_ID + ",\"endpoint\":\"" + run.endpoint(client.endpoint()) + "\""
                    + (recover == null ? "" : ",\"recover\":" + recover) + "}"));
        }
    }

    @Override
    void onServerClose(int code) {
        run.onServerClose(code);
    }

    @Override
    void onError(String why) {
        run.problem("client " + client.index() + ": " + why);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        run.onClosed(client);
        super.channelInactive(ctx);
    }
}
