package io.sluice.bridge.mqtt;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.sluice.bridge.metrics.BridgeMetrics;

/**
 * Cuts the byte stream into whole MQTT packets before Netty's {@code MqttDecoder} sees them, refusing a packet on its
 * fixed header: in, socket bytes; out, one retained slice per packet. Netty's decoder waits for a packet's whole
 * remaining length before it compares it with its own limit, so on its own a client announcing 256 MiB made the node
 * buffer that much; here at most the limit in force is ever buffered. Until CONNECT is accepted the limit is what a
 * CONNECT needs ({@link #preConnectBytes}); {@link #raise} lifts it to {@code mqtt.maxPacketBytes}. A remaining length
 * of more than four bytes, or over the limit, fails the connection ({@link Malformed}, {@link TooLarge}); everything
 * after is discarded until it closes.
 */
final class PacketLimit extends ByteToMessageDecoder {

    static final String NAME = "mqtt-packets";
    /** What a CONNECT may carry besides its token and client identifier: user name, will topic and payload, properties. */
    static final int CONNECT_EXTRA_BYTES = 4096;

    /** A remaining length MQTT does not allow (a fifth length byte). */
    static final class Malformed extends DecoderException {
        Malformed(String message) {
            super(message);
        }
    }

    /** A packet over the limit in force, refused on its fixed header. */
    static final class TooLarge extends DecoderException {
        final boolean beforeConnect;

        TooLarge(String message, boolean beforeConnect) {
            super(message);
            this.beforeConnect = beforeConnect;
        }
    }

    private final BridgeMetrics metrics;
    private int limit;
    private boolean connected;
    private boolean failed;

    PacketLimit(int preConnectBytes, BridgeMetrics metrics) {
        this.limit = preConnectBytes;
        this.metrics = metrics;
    }

    /** A CONNECT's limit: the token, the client identifier and {@link #CONNECT_EXTRA_BYTES}. */
    static int preConnectBytes(int maxTokenBytes, int maxClientIdBytes, int maxPacketBytes) {
        return Math.min(maxPacketBytes, maxTokenBytes + maxClientIdBytes + CONNECT_EXTRA_BYTES);
    }

    /** The CONNECT was accepted: packets up to {@code maxPacketBytes} from the next one on. */
    void raise(int maxPacketBytes) {
        limit = maxPacketBytes;
        connected = true;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int start = in.readerIndex();
        int available = in.readableBytes();
        if (available < 2) {
            return;
        }
        int remaining = 0;
        int header = 1;
        for (int shift = 0; ; shift += 7) {
            if (header >= available) {
                return;
            }
            byte digit = in.getByte(start + header);
            header++;
            remaining |= (digit & 0x7f) << shift;
            if ((digit & 0x80) == 0) {
                break;
            }
            if (header == 5) {
                failed = true;
                in.skipBytes(available);
                throw new Malformed("a remaining length of more than four bytes");
            }
        }
        if (remaining > limit) {
            failed = true;
            in.skipBytes(available);
            metrics.inboundTooLarge(connected ? "connected" : "before_connect");
            throw new TooLarge("a packet of " + remaining + " bytes, more than the " + limit + " allowed"
                    + (connected ? " (mqtt.maxPacketBytes)" : " before CONNECT is accepted"), !connected);
        }
        if (available < header + remaining) {
            return;
        }
        out.add(in.readRetainedSlice(header + remaining));
    }
}
