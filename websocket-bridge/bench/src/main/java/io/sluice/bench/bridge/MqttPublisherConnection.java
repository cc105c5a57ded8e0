package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * One bench client publishing into Kafka through the bridge over MQTT 3.1.1: CONNECT as {@link MqttSubscriberConnection}
 * does, then on its {@link PublishSchedule} a QoS 1 PUBLISH of the bench's payload to its own endpoint's topic
 * ({@link BenchTopic#publishEndpoint} without the leading {@code /}). The bridge PUBACKs once Kafka has the record
 * ({@code acks=all}), in order; publish {@code i} has packet id {@code i % 65535 + 1}, and the PUBACK of that id settles
 * the oldest publish still waiting with it (MQTT's ids are reused once acknowledged, and the bridge bounds how many
 * wait, far below 65,535). Runs on its channel's event loop only.
 */
final class MqttPublisherConnection extends ByteToMessageDecoder implements PublishingClient {

    private static final int CONNACK = 2;
    private static final int PUBACK = 4;
    private static final int IDS = 65_535;

    private final BenchPublishers run;
    private final int client;
    private final byte[] topic;
    private final BitSet acked = new BitSet();
    /** The oldest publish index not yet acked: PUBACKs come in order. */
    private long firstUnacked;
    private long sentCount;
    private PublishSchedule schedule;
    private boolean connected;

    MqttPublisherConnection(BenchPublishers run, int client) {
        this.run = run;
        this.client = client;
        this.topic = BenchTopic.publishEndpoint(run.topic(), client).substring(1).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public int client() {
        return client;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.schedule = new PublishSchedule(ctx, run, (index, scheduled) -> {
            sentCount = index + 1;
            ctx.write(publish(index, run.publishPayload(scheduled, client + ":" + index)));
        });
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(MqttSubscriberConnection.connect("bench-pub-" + client, run.token()));
        super.channelActive(ctx);
    }

    @Override
    public void start(long firstDue, long periodNanos) {
        schedule.start(firstDue, periodNanos);
    }

    @Override
    public void stop() {
        schedule.stop();
    }

    private ByteBuf publish(long index, byte[] payload) {
        int packetId = (int) (index % IDS) + 1;
        ByteBuf out = run.allocator().buffer(5 + 2 + topic.length + 2 + payload.length);
        out.writeByte(0x32); // PUBLISH, QoS 1
        int length = 2 + topic.length + 2 + payload.length;
        do {
            int b = length & 0x7f;
            length >>>= 7;
            out.writeByte(length > 0 ? b | 0x80 : b);
        } while (length > 0);
        out.writeShort(topic.length).writeBytes(topic).writeShort(packetId).writeBytes(payload);
        return out;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 2) {
            int start = in.readerIndex();
            int type = (in.getUnsignedByte(start) >> 4) & 0x0f;
            int remaining = in.getUnsignedByte(start + 1);
            if ((remaining & 0x80) != 0) {
                // CONNACK and PUBACK are 2 bytes long: anything longer is not one the bench asked for.
                run.onProblem("an MQTT packet longer than 127 bytes on a publishing connection");
                ctx.close();
                return;
            }
            if (in.readableBytes() < 2 + remaining) {
                return;
            }
            in.readerIndex(start + 2 + remaining);
            if (type == CONNACK) {
                int code = remaining >= 2 ? in.getUnsignedByte(start + 3) : -1;
                if (code != 0) {
                    run.onProblem("CONNACK return code " + code);
                    ctx.close();
                    return;
                }
                connected = true;
                run.onConnected(this);
            } else if (type == PUBACK && remaining >= 2) {
                onPuback(in.getUnsignedShort(start + 2));
            } else {
                run.onProblem("MQTT packet type " + type + " on a publishing connection");
            }
        }
    }

    private void onPuback(int packetId) {
        if (firstUnacked >= sentCount || (int) (firstUnacked % IDS) + 1 != packetId) {
            run.onProblem("a PUBACK for packet id " + packetId + " out of order");
            return;
        }
        long index = firstUnacked++;
        synchronized (acked) {
            acked.set((int) index);
        }
        run.onAcked(LatencyStamp.now() - schedule.due(index));
    }

    @Override
    public BitSet acked() {
        synchronized (acked) {
            return (BitSet) acked.clone();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        schedule.cancel();
        run.onClosed(connected);
        super.channelInactive(ctx);
    }
}
