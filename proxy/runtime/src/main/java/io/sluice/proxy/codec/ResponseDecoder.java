package io.sluice.proxy.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Broker frames in, {@link ResponseFrame}s out. A response carries only a correlation id, so the request
 * it answers (API, version, whether anyone wants it decoded, the filters' hooks on it) comes from the {@link CorrelationTracker};
 * the client's own correlation id is put back here.
 */
public final class ResponseDecoder extends ChannelInboundHandlerAdapter {

    private final CorrelationTracker tracker;

    public ResponseDecoder(CorrelationTracker tracker) {
        this.tracker = tracker;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ResponseFrame decoded;
        try {
            decoded = decode(frame);
        } catch (RuntimeException e) {
            frame.release();
            throw e instanceof ProtocolException ? e : new ProtocolException(ProtocolException.Reason.MALFORMED, "undecodable response: " + e, e);
        }
        ctx.fireChannelRead(decoded);
    }

    private ResponseFrame decode(ByteBuf frame) {
        int start = frame.readerIndex();
        int size = frame.readableBytes() - 4;
        if (size < 4) {
            throw new ProtocolException(ProtocolException.Reason.MALFORMED, "response of " + size + " bytes has no correlation id");
        }
        CorrelationTracker.Pending request = tracker.complete(frame.getInt(start + OpaqueResponse.CORRELATION_ID_OFFSET));
        if (!request.sizeHooks().isEmpty()) {
            runSizeHooks(request, frame, start, size);
        }
        if (!request.decodeResponse() && request.outOfBand() == null) {
            frame.setInt(start + OpaqueResponse.CORRELATION_ID_OFFSET, request.clientCorrelationId());
            return new OpaqueResponse(request.clientCorrelationId(), frame);
        }
        ByteBufferAccessor reader;
        ByteBuf backing = frame;
        if (request.outOfBand() != null) {
            // The sending filter may keep the response (records and all) past this event-loop turn, so it
            // gets a heap copy instead of views into a pooled buffer that is about to be recycled.
            byte[] copy = new byte[size];
            frame.getBytes(start + 4, copy);
            frame.release();
            backing = null;
            reader = new ByteBufferAccessor(ByteBuffer.wrap(copy));
        } else {
            reader = new ByteBufferAccessor(frame.nioBuffer(start + 4, size));
        }
        ResponseHeaderData header = new ResponseHeaderData(reader, request.apiKey().responseHeaderVersion(request.apiVersion()));
        ApiMessage body = request.apiKey().messageType.newResponse();
        body.read(reader, request.apiVersion());
        if (request.onlyForLeaderHints() && !LeaderHints.present(body)) {
            // Nothing to rewrite: the received bytes go on, and the message read to find that out is dropped unencoded.
            frame.setInt(start + OpaqueResponse.CORRELATION_ID_OFFSET, request.clientCorrelationId());
            return new OpaqueResponse(request.clientCorrelationId(), frame);
        }
        header.setCorrelationId(request.clientCorrelationId());
        return new DecodedResponse(request.apiKey(), request.apiVersion(), header, body, request.outOfBand(), backing, request.responseHooks());
    }

    /**
     * Before anyone decodes the response, so that a filter reading it sees the throttle the hooks raised. The hooks come
     * wrapped by their filters' handlers, which turn a failure into the filter's close of the connection.
     */
    private static void runSizeHooks(CorrelationTracker.Pending request, ByteBuf frame, int start, int size) {
        int millis = 0;
        for (int i = 0; i < request.sizeHooks().size(); i++) {
            millis = Math.max(millis, request.sizeHooks().get(i).onResponseSize(size));
        }
        if (millis > 0) {
            ThrottleField.raise(frame, start, size, request.apiKey(), request.apiVersion(), millis);
        }
    }
}
