package io.sluice.bridge.websocket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.session.Inbound;
import io.sluice.flow.WritabilityGate;

/**
 * The size of client messages before and after {@code connect}. A client that has not authenticated may send only a
 * message that fits a {@code connect}: {@code requests.maxTokenBytes} plus {@link #CONNECT_ENVELOPE_BYTES} for the
 * JSON around the token (at most {@code server.maxInboundMessageBytes}). Netty's own frame decoder enforces it on the
 * frame header, before the payload is buffered, and the fragment aggregator on the sum of a fragmented message's
 * frames; either closes the connection with 1009.
 *
 * <p>When a {@code connect} arrives, the decoder and the aggregator are replaced by ones with the normal limit. That
 * happens while the connect message is being delivered, so exactly between two frames (Netty hands the bytes the old
 * decoder still holds to the new one), and reading from the socket stops until the token is accepted: an
 * unauthenticated client never gets more than what it had sent along with its connect read at the normal size. A
 * rejected or busy connect closes the connection, so the small limit never has to come back.</p>
 */
final class PreConnectLimit implements Inbound {

    /** Room for {@code {"type":"connect","id":...,"token":"..."}} around the token, with some whitespace. */
    static final int CONNECT_ENVELOPE_BYTES = 1024;

    static final String AGGREGATOR = "fragments";

    private final Channel channel;
    private final WebSocketDecoderConfig normal;
    private final int maxMessageBytes;
    private final BridgeMetrics metrics;
    private boolean lifted;

    /**
     * @param normal          the decoder settings after connect (its maxFramePayloadLength: server.maxInboundMessageBytes)
     * @param maxMessageBytes the largest message after connect
     */
    PreConnectLimit(Channel channel, WebSocketDecoderConfig normal, int maxMessageBytes, BridgeMetrics metrics) {
        this.channel = channel;
        this.normal = normal;
        this.maxMessageBytes = maxMessageBytes;
        this.metrics = metrics;
    }

    /** The largest message before connect: one that fits a connect with the longest token accepted. */
    static int bytes(int maxTokenBytes, int maxMessageBytes) {
        return (int) Math.min(maxMessageBytes, (long) maxTokenBytes + CONNECT_ENVELOPE_BYTES);
    }

    /** The decoder settings before connect: the normal ones with the small frame limit. */
    static WebSocketDecoderConfig beforeConnect(WebSocketDecoderConfig normal, int bytes) {
        return normal.toBuilder().maxFramePayloadLength(bytes).build();
    }

    @Override
    public void connecting() {
        if (lifted) {
            return;
        }
        lifted = true;
        FrameLimit.raise(channel, normal);
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.replace(AGGREGATOR, AGGREGATOR, new WebSocketFrameAggregator(maxMessageBytes));
        WritabilityGate.pauseReading(channel, this);
    }

    @Override
    public void connected() {
        WritabilityGate.resumeReading(channel, this);
    }

    /** A client message over the limit in force closed the connection. */
    void tooLarge() {
        metrics.inboundTooLarge(lifted ? "connected" : "before_connect");
    }

}
