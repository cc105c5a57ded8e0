package io.sluice.bridge.websocket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.WebSocket00FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket07FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;

/**
 * Raises a WebSocket connection's frame size limit once its client authenticates: the frame decoder the handshake
 * installed (with the small pre-authentication limit) is replaced by one of the same version with {@code normal}'s.
 * Call it while a frame is being delivered, so exactly between two frames: Netty hands the bytes the old decoder still
 * holds to the new one. Shared by the bridge's protocol ({@link PreConnectLimit}) and MQTT over WebSocket.
 */
public final class FrameLimit {

    /** The name Netty's WebSocket handshake gives the frame decoder. */
    static final String DECODER = "wsdecoder";

    private FrameLimit() {
    }

    /** Replaces the channel's frame decoder (if it has one yet) by one with {@code normal}'s settings. */
    public static void raise(Channel channel, WebSocketDecoderConfig normal) {
        ChannelPipeline pipeline = channel.pipeline();
        ChannelHandler decoder = pipeline.get(DECODER);
        if (decoder != null) {
            pipeline.replace(DECODER, DECODER, decoder(decoder, normal));
        }
    }

    /** The same kind of decoder the handshake chose (the WebSocket version the client asked for), at the normal size. */
    private static ChannelHandler decoder(ChannelHandler decoder, WebSocketDecoderConfig normal) {
        if (decoder instanceof WebSocket13FrameDecoder) {
            return new WebSocket13FrameDecoder(normal);
        }
        if (decoder instanceof WebSocket07FrameDecoder) {
            return new WebSocket07FrameDecoder(normal);
        }
        if (decoder instanceof WebSocket08FrameDecoder) {
            return new WebSocket08FrameDecoder(normal);
        }
        if (decoder instanceof WebSocket00FrameDecoder) {
            return new WebSocket00FrameDecoder(normal);
        }
        throw new IllegalStateException("unexpected WebSocket decoder " + decoder.getClass().getName());
    }
}
