package io.sluice.bridge.http;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.function.Predicate;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.sluice.flow.Closing;
import io.sluice.flow.WritabilityGate;

/**
 * Answers leave in the order their requests came, whatever order they complete in (a publish waits for Kafka, a
 * cookie for the token's validation), so pipelined HTTP/1.1 requests get their answers as RFC 9112 requires; the
 * bridge's counterpart of the proxy's {@code ResponseSequencer}. In: the requests {@code ordered} accepts, passed on
 * wrapped as {@link Ordered}, each with its {@link Place}; the handler after this one answers a place by writing
 * {@link Answer}. Out: the answers' responses, in request order, with {@code Connection} set to what the request and
 * the answer ask for; after one that closes the connection nothing more is read or answered. What arrives behind an
 * unanswered request (another path's request, an upgrade, a file) is held here and passed on in its turn, so that its
 * own answer cannot overtake; reading stops while {@code maxWaiting} requests wait. Also the {@link KeepAlive}'s
 * signals: busy from the first request waiting, idle once none does. On an HTTP/2 stream (one request each) it keeps
 * the same bookkeeping. Event loop only.
 */
public final class AnswerOrder extends ChannelDuplexHandler {

    public static final String NAME = "http-order";

    private static final ClosedChannelException DROPPED = new ClosedChannelException();

    /** A request that has its place in the order, as the next handler gets it (it releases {@code request}). */
    public record Ordered(Place place, Object request) {
    }

    /**
     * A place's answer, written by the handler after this one.
     *
     * @param closeAfter the connection closes after it, lingering while the client may still be sending (an
     *                   oversized body it is not read)
     * @param leaving    run as the response is written (the metrics), not when it is dropped
     */
    public record Answer(Place place, FullHttpResponse response, boolean closeAfter, Runnable leaving) {
    }

    /** One request's place in the answer order. */
    public static final class Place {
        private final HttpVersion version;
        private final boolean keepAlive;
        private final Object passOn;
        private Answer answer;
        private ChannelPromise promise;
        private boolean live = true;

        private Place(HttpRequest request, Object passOn) {
            this.version = request == null ? HttpVersion.HTTP_1_1 : request.protocolVersion();
            this.keepAlive = request == null || HttpUtil.isKeepAlive(request);
            this.passOn = passOn;
        }

        /** The request's HTTP version, which its answer is written in. */
        public HttpVersion version() {
            return version;
        }

        /** False once the place was answered or dropped (the connection is closing): nothing more to do for it. */
        public boolean live() {
            return live;
        }

        private boolean done() {
            return passOn != null || answer != null;
        }
    }

    private final Predicate<Object> ordered;
    private final KeepAlive keepAlive;
    private final int maxWaiting;
    private final ArrayDeque<Place> places = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean closing;
    private boolean paused;

    /**
     * @param ordered    the reads whose answers come back as {@link Answer}s: requests, or a {@link BodyLimit.TooLarge}
     *                   (the head of a request whose body was not read)
     * @param maxWaiting places waiting at most before reading stops (it resumes at half)
     */
    public AnswerOrder(Predicate<Object> ordered, KeepAlive keepAlive, int maxWaiting) {
        this.ordered = ordered;
        this.keepAlive = keepAlive;
        this.maxWaiting = maxWaiting;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (ordered.test(msg)) {
            if (places.isEmpty()) {
                keepAlive.busy();
            }
            Place place = new Place(head(msg), null);
            places.add(place);
            bound();
            ctx.fireChannelRead(new Ordered(place, msg));
            return;
        }
        if (places.isEmpty()) {
            ctx.fireChannelRead(msg);
            return;
        }
        // Behind an unanswered request: passed on in turn, so that its answer (a file, an upgrade) does not overtake.
        places.add(new Place(null, msg));
        bound();
    }

    /** The request head of an ordered message: the request itself, or the head a {@link BodyLimit.TooLarge} keeps. */
    private static HttpRequest head(Object msg) {
        if (msg instanceof BodyLimit.TooLarge tooLarge) {
            return tooLarge.head();
        }
        return msg instanceof HttpRequest request ? request : null;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof Answer answer)) {
            ctx.write(msg, promise);
            return;
        }
        Place place = answer.place();
        if (closing || !place.live || place.answer != null) {
            answer.response().release();
            promise.tryFailure(DROPPED);
            return;
        }
        place.answer = answer;
        place.promise = promise;
        drain();
    }

    private void drain() {
        while (!places.isEmpty() && places.peek().done() && !closing) {
            Place place = places.poll();
            place.live = false;
            if (place.passOn != null) {
                ctx.fireChannelRead(place.passOn);
                continue;
            }
            Answer answer = place.answer;
            FullHttpResponse response = answer.response();
            boolean close = answer.closeAfter() || !place.keepAlive;
            if (close) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            else if (place.version.equals(HttpVersion.HTTP_1_0)) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            answer.leaving().run();
            ChannelFuture written = ctx.writeAndFlush(response, place.promise);
            if (close) {
                closing = true;
                releaseWaiting();
                // The client may still be sending (an oversized body): it is discarded until it stops or the grace ends.
                if (answer.closeAfter()) {
                    Closing.lingerAfter(ctx.channel(), written, Closing.DEFAULT_GRACE);
                }
                else {
                    Closing.closeOnceDone(ctx.channel(), written, Closing.DEFAULT_GRACE);
                }
                return;
            }
        }
        if (paused && places.size() <= maxWaiting / 2) {
            paused = false;
            WritabilityGate.resumeReading(ctx.channel(), this);
        }
        if (places.isEmpty()) {
            keepAlive.idle();
        }
    }

    /** Too many requests waiting for their turn: no more are read until they drain. */
    private void bound() {
        if (!paused && places.size() >= maxWaiting) {
            paused = true;
            WritabilityGate.pauseReading(ctx.channel(), this);
        }
    }

    private void releaseWaiting() {
        for (Place place : places) {
            place.live = false;
            if (place.passOn != null) {
                ReferenceCountUtil.release(place.passOn);
            }
            if (place.answer != null) {
                place.answer.response().release();
                place.promise.tryFailure(DROPPED);
            }
        }
        places.clear();
    }

    /** Removed from a connection that stopped speaking HTTP (a WebSocket upgrade): nothing it held is kept. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseWaiting();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closing = true;
        releaseWaiting();
        super.channelInactive(ctx);
    }
}
