package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * One bench subscriber over MQTT 3.1.1 ({@code bench bridge --transport mqtt}), as its whole pipeline like
 * {@link ClientWebSocket}: CONNECT with the bench's token as the password, on CONNACK a QoS 0 SUBSCRIBE to its
 * endpoint's topic ({@code /bench/k17} is {@code bench/k17}, docs/bridge-mqtt.md), then each PUBLISH read in place:
 * only its payload's stamp. Packets are framed here rather than by Netty's MQTT codec, which would allocate a message
 * per PUBLISH in the load generator that shares the machine with the bridge being measured. Keep-alive 0 (none, as
 * 3.1.1 allows): the bench's connections never go quiet long enough to matter, and nothing is sent after SUBSCRIBE.
 */
final class MqttSubscriberConnection extends ByteToMessageDecoder {

    private static final int CONNACK = 2;
    private static final int PUBLISH = 3;
    private static final int SUBACK = 9;
    /** What a packet from the bridge may hold here: a PUBLISH of a payload, far more than any the bench sends. */
    private static final int MAX_PACKET = 16 << 20;

    private final BenchSubscribers run;
    private final int endpoint;
    private final int clientNumber;
    private boolean subscribed;

    MqttSubscriberConnection(BenchSubscribers run, int endpoint, int clientNumber) {
        this.run = run;
        this.endpoint = endpoint;
        this.clientNumber = clientNumber;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(connect("bench-" + clientNumber, run.token()));
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 2) {
            int start = in.readerIndex();
            int type = (in.getUnsignedByte(start) >> 4) & 0x0f;
            int remaining = 0;
            int at = start + 1;
            int shift = 0;
            while (true) {
                if (at >= in.writerIndex()) {
                    return; // the length is not all here yet
                }
                int b = in.getUnsignedByte(at++);
                remaining |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                shift += 7;
                if (shift > 21) {
                    fail(ctx, "a remaining length longer than four bytes");
                    return;
                }
            }
            if (remaining > MAX_PACKET) {
                fail(ctx, "a packet of " + remaining + " bytes");
                return;
            }
            if (in.writerIndex() - at < remaining) {
                return;
            }
            run.onWireBytes(at - start + remaining);
            in.readerIndex(at + remaining);
            switch (type) {
                case CONNACK -> {
                    int code = remaining >= 2 ? in.getUnsignedByte(at + 1) : -1;
                    if (code != 0) {
                        fail(ctx, "CONNACK return code " + code);
                        return;
                    }
                    ctx.writeAndFlush(subscribe(BenchTopic.endpoint(run.topic(), endpoint).substring(1)));
                }
                case SUBACK -> {
                    int granted = remaining >= 3 ? in.getUnsignedByte(at + 2) : 0x80;
                    if (granted == 0x80) {
                        fail(ctx, "SUBACK refused the subscription");
                        return;
                    }
                    subscribed = true;
                    run.onSubscribed();
                }
                case PUBLISH -> {
                    int qos = (in.getUnsignedByte(start) >> 1) & 3;
                    int topicLength = in.getUnsignedShort(at);
                    int payloadAt = at + 2 + topicLength + (qos > 0 ? 2 : 0);
                    run.onMqttMessage(in, payloadAt, at + remaining - payloadAt);
                }
                default -> run.onOtherMessage("MQTT packet type " + type);
            }
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

    /** CONNECT, MQTT 3.1.1, clean session, keep-alive 0, user name "bench" (3.1.1 allows a password only with one). */
    static ByteBuf connect(String clientId, String token) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        byte[] user = "bench".getBytes(StandardCharsets.US_ASCII);
        byte[] password = token.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = Unpooled.buffer(10 + 6 + id.length + user.length + password.length);
        body.writeShort(4).writeBytes("MQTT".getBytes(StandardCharsets.US_ASCII)).writeByte(4);
        body.writeByte(0x80 | 0x40 | 0x02).writeShort(0);
        body.writeShort(id.length).writeBytes(id).writeShort(user.length).writeBytes(user).writeShort(password.length).writeBytes(password);
        return packet(0x10, body);
    }

    /** SUBSCRIBE of one filter at QoS 0, packet id 1. */
    static ByteBuf subscribe(String filter) {
        byte[] topic = filter.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = Unpooled.buffer(5 + topic.length);
        body.writeShort(1).writeShort(topic.length).writeBytes(topic).writeByte(0);
        return packet(0x82, body);
    }

    private static ByteBuf packet(int firstByte, ByteBuf body) {
        ByteBuf out = Unpooled.buffer(5 + body.readableBytes());
        out.writeByte(firstByte);
        int length = body.readableBytes();
        do {
            int b = length & 0x7f;
            length >>>= 7;
            out.writeByte(length > 0 ? b | 0x80 : b);
        } while (length > 0);
        out.writeBytes(body);
        body.release();
        return out;
    }
}
