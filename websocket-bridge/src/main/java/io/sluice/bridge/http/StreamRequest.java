package io.sluice.bridge.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.metrics.BridgeMetrics;

/**
 * The first handler of an HTTP/2 stream: its request (headers and body) must be complete, END_STREAM read, within
 * the {@link RequestDeadline} after the stream opened, as an HTTP/1.1 request must be after the previous
 * answer; past that the stream is reset (RST_STREAM CANCEL, by closing it) and what it buffered is released with it.
 * A request with a body first reserves its bytes in the connection's {@link BodyBudget}; one that does not fit is
 * refused with RST_STREAM REFUSED_STREAM before a byte of its body is read (RFC 9113 section 8.7: nothing was done, the
 * client may retry). Counted in {@code sluice_bridge_requests_refused_total} as {@code http2_request_deadline} and
 * {@code http2_body_budget}; logged at DEBUG only (a client can cause one per stream at will).
 */
public final class StreamRequest extends ChannelInboundHandlerAdapter {

    public static final String NAME = "h2-request";
    static final String DEADLINE = "http2_request_deadline";
    static final String BUDGET = "http2_body_budget";
    private static final Logger LOG = LoggerFactory.getLogger(StreamRequest.class);

    private final BodyBudget budget;
    private final long maxBodyBytes;
    private final Duration timeout;
    private final BridgeMetrics metrics;
    private ScheduledFuture<?> deadline;
    private boolean headersRead;
    private boolean complete;
    private long reserved;

    /** @param timeout the {@link RequestDeadline} */
    public StreamRequest(BodyBudget budget, long maxBodyBytes, Duration timeout, BridgeMetrics metrics) {
        this.budget = budget;
        this.maxBodyBytes = maxBodyBytes;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> timedOut(ctx), timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!complete && msg instanceof Http2HeadersFrame headers && !headersRead) {
            headersRead = true;
            if (!headers.isEndStream() && !reserve(headers)) {
                ReferenceCountUtil.release(msg);
                refuse(ctx);
                return;
            }
        }
        boolean ends = msg instanceof Http2HeadersFrame h ? h.isEndStream() : msg instanceof Http2DataFrame d && d.isEndStream();
        // The request is handed on whole within this read (BodyLimit, the routes): its bytes are given back after it.
        ctx.fireChannelRead(msg);
        if (ends) {
            complete();
        }
    }

    /** What the body may take: its Content-Length, at most server.maxInboundMessageBytes (BodyLimit refuses more). */
    private boolean reserve(Http2HeadersFrame headers) {
        long bytes = maxBodyBytes;
        CharSequence length = headers.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (length != null) {
            try {
                bytes = Math.min(maxBodyBytes, Math.max(0, Long.parseLong(length.toString().strip())));
            }
            catch (NumberFormatException e) {
                // Netty's codec refuses a malformed Content-Length; the largest body is reserved meanwhile.
            }
        }
        if (!budget.reserve(bytes)) {
            return false;
        }
        reserved = bytes;
        return true;
    }

    private void refuse(ChannelHandlerContext ctx) {
        complete();
        metrics.refused(BUDGET);
        LOG.debug("{}: HTTP/2 stream refused: the connection's request bodies are at its budget", remote(ctx));
        Http2StreamChannel stream = (Http2StreamChannel) ctx.channel();
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(stream.stream()))
                .addListener(f -> ctx.channel().close());
    }

    private void timedOut(ChannelHandlerContext ctx) {
        if (complete || !ctx.channel().isActive()) {
            return;
        }
        complete();
        metrics.refused(DEADLINE);
        LOG.debug("{}: HTTP/2 stream reset: its request was not complete within connections.handshakeTimeout {}", remote(ctx), timeout);
        // Closing a stream whose client half is open sends RST_STREAM CANCEL; BodyLimit releases what it held.
        ctx.channel().close();
    }

    /** The request is complete (or refused): no deadline, and its reservation is given back. */
    private void complete() {
        complete = true;
        if (deadline != null) {
            deadline.cancel(false);
        }
        budget.release(reserved);
        reserved = 0;
    }

    private static Object remote(ChannelHandlerContext ctx) {
        return ctx.channel().parent() == null ? null : ctx.channel().parent().remoteAddress();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        complete();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        complete();
    }
}
