package io.sluice.bridge.websocket;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelPipeline;

/**
 * Where pre-encoded WebSocket frames enter the pipeline: next to the socket (after TLS, when there is TLS). A
 * message's frame is complete bytes, header included, so the WebSocket and HTTP handlers further up have nothing to do
 * with it; writing it from here skips their per-write checks, which profiling showed at about a sixth of the event
 * loops' Java time. Control frames and replies still go through the whole pipeline; everything runs on the
 * connection's event loop, so the order of writes is kept. The event stream on HTTP/1.1 writes its chunks here too
 * (by the name, {@code sse.SseStreams}): it is the one spot below the HTTP codec, added with the WebSocket handlers
 * ({@link WebSocketPipeline#addFrames}).
 */
@ChannelHandler.Sharable
final class EncodedFrames extends ChannelHandlerAdapter {

    static final String NAME = "frames";
    static final EncodedFrames INSTANCE = new EncodedFrames();

    private EncodedFrames() {
    }

    /** Adds the marker as the pipeline's innermost handler so far (call before the HTTP codec is added). */
    static void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(NAME, INSTANCE);
    }
}
