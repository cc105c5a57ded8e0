package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * One bench client publishing into Kafka through the bridge over WebSocket: after the upgrade ({@link ClientWebSocket})
 * it sends {@code connect}, and once told to start publishes on its own {@link PublishSchedule} to its own endpoint
 * ({@link BenchTopic#publishEndpoint}). Each publish carries {@code <client>:<i>} so the Kafka side can tell every
 * publish apart ({@link PublishedRecords}). The {@code ack} of publish {@code i} has id {@code i + FIRST_ID}; its
 * latency is now minus the schedule's time for i. Runs on its channel's event loop only; {@link #acked()} is read once
 * the loop has stopped publishing and the acks are in.
 */
final class PublisherConnection extends ClientWebSocket implements PublishingClient {

    /** Publish ids start above the connect's (1). */
    static final int FIRST_ID = 2;
    private static final byte[] ID_FIELD = "\"id\":".getBytes(StandardCharsets.US_ASCII);

    private final BenchPublishers run;
    private final int client;
    private final String endpoint;
    private final BitSet acked = new BitSet();
    private PublishSchedule schedule;
    private boolean connected;

    PublisherConnection(BenchPublishers run, int client) {
        super(run.upgradeRequest());
        this.run = run;
        this.client = client;
        this.endpoint = BenchTopic.publishEndpoint(run.topic(), client);
    }

    @Override
    public int client() {
        return client;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.schedule = new PublishSchedule(ctx, run, (index, scheduled) ->
                ctx.write(run.publishFrame(endpoint, index + FIRST_ID, scheduled, client + ":" + index)));
    }

    @Override
    void onUpgraded(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(run.connectFrame());
    }

    @Override
    public void start(long firstDue, long periodNanos) {
        schedule.start(firstDue, periodNanos);
    }

    @Override
    public void stop() {
        schedule.stop();
    }

    @Override
    void onText(ChannelHandlerContext ctx, ByteBuf in, int start, int length) {
        byte kind = length > TYPE_AT + 1 ? in.getByte(start + TYPE_AT) : 0;
        if (kind == 'a') {
            long id = readId(in, start, start + length);
            if (id >= FIRST_ID) {
                long index = id - FIRST_ID;
                synchronized (acked) {
                    acked.set((int) index);
                }
                run.onAcked(LatencyStamp.now() - schedule.due(index));
                return;
            }
        }
        String json = in.toString(start, length, StandardCharsets.UTF_8);
        if (json.startsWith("{\"type\":\"connected\"")) {
            connected = true;
            run.onConnected(this);
        } else if (json.startsWith("{\"type\":\"error\"") && readId(in, start, start + length) >= FIRST_ID) {
            run.onRefused(json);
        } else {
            run.onProblem(json);
        }
    }

    /** The number after the first {@code "id":}, or -1. */
    static long readId(ByteBuf in, int from, int to) {
        int at = LatencyStamp.indexOf(in, from, to, ID_FIELD);
        if (at < 0) {
            return -1;
        }
        long value = 0;
        int digits = 0;
        for (int i = at + ID_FIELD.length; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9) {
                break;
            }
            value = value * 10 + d;
            digits++;
        }
        return digits == 0 ? -1 : value;
    }

    @Override
    public BitSet acked() {
        synchronized (acked) {
            return (BitSet) acked.clone();
        }
    }

    @Override
    void onServerClose(int code) {
        run.onProblem("the bridge closed a publishing connection with code " + code);
    }

    @Override
    void onWireBytes(int bytes) {
        // the publishing side counts what it sends, not the acks
    }

    @Override
    void onError(String why) {
        run.onProblem(why);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        schedule.cancel();
        run.onClosed(connected);
        super.channelInactive(ctx);
    }
}
