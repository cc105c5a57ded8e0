package io.sluice.bridge.session;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.EncodedMessage;

/**
 * How a {@link Session} puts what it owes its client on the connection: the one thing that differs between the
 * WebSocket and the SSE transports. Everything else (authentication timers, subscriptions, recovery, conflation, the
 * slow-client limits, deltas, filters) is the session's and the same for both. Event loop only.
 */
public interface Wire {

    /** The metrics' {@code transport} label: {@code websocket} or {@code sse}. */
    String transport();

    /**
     * A message, delta or gap notice, as the complete pre-encoded WebSocket frame it is shared as (do not modify it;
     * retain what is written). Written, not flushed.
     *
     * @param frame   {@code message.frame()} or, for a delta, {@code message.deltaFrame()}
     * @param pattern the subscription it goes out for, or null for a conflated message (every subscription of the
     *                stream whose pattern matches its endpoint has it then)
     */
    void message(EncodedMessage message, ByteBuf frame, boolean delta, String pattern);

    /** A reply or notice of the session's own, as compact JSON; written and flushed. */
    void control(byte[] json);

    void flush();

    /**
     * Bytes written and not yet on the socket, counted against {@code outbound.maxBytes}; -1 when the connection's
     * outbound buffer holds them all (WebSocket, HTTP/1.1). An HTTP/2 stream's frames wait in the connection's flow
     * controller instead, where its channel does not see them.
     */
    default long queuedBytes() {
        return -1;
    }

    /**
     * Tells the client the connection ends, with a WebSocket close code and a reason (at most 123 UTF-8 bytes), and
     * returns the write; the session closes the connection once it is done or after a grace.
     */
    ChannelFuture close(int code, String reason);

    /**
     * A subscription was made: the positions the client recovers from and the node's position in every partition it
     * covers. For transports that tell the client its whole position (SSE ids); nothing for WebSocket, whose clients
     * track positions themselves.
     */
    default void subscribed(String pattern, List<ClientRequest.Position> recover, List<ClientRequest.Position> positions) {
    }
}
