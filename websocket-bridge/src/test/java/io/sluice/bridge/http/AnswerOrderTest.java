package io.sluice.bridge.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AnswerOrder} in an {@link EmbeddedChannel}: requests under {@code /api} are ordered, the handler after it
 * keeps their places and answers them when the test says; every read that reaches it and every response written to the
 * socket is logged in one list, so the assertions see the order of both.
 */
class AnswerOrderTest {

    private final List<String> log = new ArrayList<>();
    private final List<AnswerOrder.Place> places = new ArrayList<>();
    private final List<String> keepAlive = new ArrayList<>();
    private final List<FullHttpResponse> made = new ArrayList<>();
    private EmbeddedChannel channel;
    private ChannelHandlerContext routes;

    private void start(int maxWaiting) {
        KeepAlive signals = new KeepAlive() {
            @Override
            public void busy() {
                keepAlive.add("busy");
            }

            @Override
            public void idle() {
                keepAlive.add("idle");
            }
        };
        channel = new EmbeddedChannel(
                new ChannelOutboundHandlerAdapter() {
                    @Override
                    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                        if (msg instanceof FullHttpResponse response) {
                            log.add("sent " + response.content().toString(StandardCharsets.US_ASCII));
                        }
                        ctx.write(msg, promise);
                    }
                },
                new AnswerOrder(msg -> msg instanceof FullHttpRequest r && r.uri().startsWith("/api"), signals, maxWaiting),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void handlerAdded(ChannelHandlerContext ctx) {
                        routes = ctx;
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof AnswerOrder.Ordered ordered) {
                            FullHttpRequest request = (FullHttpRequest) ordered.request();
                            log.add("ordered " + request.uri());
                            places.add(ordered.place());
                            request.release();
                        }
                        else {
                            FullHttpRequest request = (FullHttpRequest) msg;
                            log.add("passed " + request.uri());
                            request.release();
                        }
                    }
                });
    }

    @AfterEach
    void finish() {
        channel.finishAndReleaseAll();
    }

    private static FullHttpRequest get(String uri) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    }

    private FullHttpResponse response(String body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
        made.add(response);
        return response;
    }

    private ChannelFuture answer(int place, String body) {
        return answer(place, body, false);
    }

    private ChannelFuture answer(int place, String body, boolean closeAfter) {
        return routes.write(new AnswerOrder.Answer(places.get(place), response(body), closeAfter, () -> log.add("leaving " + body)));
    }

    @Test
    void twoPipelinedRequestsAnsweredOutOfOrderLeaveInRequestOrder() {
        start(16);
        channel.writeInbound(get("/api/1"), get("/api/2"));
        assertThat(log).containsExactly("ordered /api/1", "ordered /api/2");
        assertThat(keepAlive).containsExactly("busy");

        ChannelFuture second = answer(1, "two");
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(second.isDone()).isFalse();
        assertThat(places.get(1).live()).isTrue();

        ChannelFuture first = answer(0, "one");
        assertThat(log).containsExactly("ordered /api/1", "ordered /api/2", "leaving one", "sent one", "leaving two", "sent two");
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(places).noneMatch(AnswerOrder.Place::live);
        assertThat(keepAlive).containsExactly("busy", "idle");
        assertThat(channel.isOpen()).isTrue();
        FullHttpResponse out = channel.readOutbound();
        assertThat(out.headers().contains(HttpHeaderNames.CONNECTION)).as("HTTP/1.1 keep-alive needs no header").isFalse();
        out.release();
    }

    @Test
    void aRequestAnsweredFurtherOnWaitsForTheAnswersBeforeItAndHoldsTheLaterOnes() {
        start(16);
        // The event stream's request is not ordered here: its answer, the stream, comes from a handler further on.
        channel.writeInbound(get("/api/1"), get("/sse"), get("/api/3"));
        assertThat(log).as("the stream's request waits; the later ordered one is served (its answer waits)")
                .containsExactly("ordered /api/1", "ordered /api/3");

        answer(1, "three");
        assertThat(log).containsExactly("ordered /api/1", "ordered /api/3");
        answer(0, "one");
        assertThat(log).containsExactly("ordered /api/1", "ordered /api/3",
                "leaving one", "sent one", "passed /sse", "leaving three", "sent three");

        // Nothing waiting: a request of another path goes straight on.
        channel.writeInbound(get("/file.js"));
        assertThat(log).last().isEqualTo("passed /file.js");
        assertThat(keepAlive).containsExactly("busy", "idle");
    }

    @Test
    void anAnswerThatClosesTheConnectionDropsEverythingBehindIt() {
        start(16);
        FullHttpRequest closing = get("/api/1");
        closing.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        FullHttpRequest held = get("/other");
        channel.writeInbound(closing, get("/api/2"), held);
        held.retain();

        ChannelFuture second = answer(1, "two");
        answer(0, "one");
        assertThat(log).containsExactly("ordered /api/1", "ordered /api/2", "leaving one", "sent one");
        FullHttpResponse out = channel.readOutbound();
        assertThat(out.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        out.release();
        assertThat(channel.isOpen()).as("closed once the answer is written").isFalse();
        assertThat(second.isSuccess()).isFalse();
        assertThat(made.get(0).refCnt()).as("the dropped answer is released").isZero();
        assertThat(held.refCnt()).as("the held request is released (the test kept one reference)").isOne();
        held.release();
        assertThat(places.get(1).live()).isFalse();
    }

    @Test
    void afterTheConnectionWentInactiveNothingIsReadAndALateAnswerIsReleased() {
        start(16);
        channel.writeInbound(get("/api/1"));
        channel.pipeline().fireChannelInactive();
        assertThat(places.get(0).live()).isFalse();
        ChannelFuture late = answer(0, "one");
        assertThat(late.isSuccess()).isFalse();
        assertThat(made.get(0).refCnt()).isZero();
        FullHttpRequest after = get("/api/2");
        after.retain();
        channel.writeInbound(after);
        assertThat(after.refCnt()).as("released unread (the test kept one reference)").isOne();
        after.release();
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(log).containsExactly("ordered /api/1");
    }

    @Test
    void anOversizedBodysAnswerClosesAfterItAndAnHttp10KeepAliveIsSaidSo() {
        start(16);
        FullHttpRequest old = new DefaultFullHttpRequest(HttpVersion.HTTP_1_0, HttpMethod.GET, "/api/old");
        old.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        channel.writeInbound(old, get("/api/big"));
        assertThat(places.get(0).version()).isEqualTo(HttpVersion.HTTP_1_0);

        answer(0, "old");
        FullHttpResponse first = channel.readOutbound();
        assertThat(first.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("keep-alive");
        first.release();

        answer(1, "too large", true);
        FullHttpResponse second = channel.readOutbound();
        assertThat(second.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        second.release();
        // Lingering: an EmbeddedChannel cannot shut its output only, so it is closed.
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void readingStopsWhileTooManyRequestsWaitAndResumesAtHalf() {
        start(4);
        channel.writeInbound(get("/api/1"), get("/api/2"), get("/api/3"));
        assertThat(channel.config().isAutoRead()).isTrue();
        channel.writeInbound(get("/api/4"));
        assertThat(channel.config().isAutoRead()).as("four waiting").isFalse();
        answer(0, "one");
        assertThat(channel.config().isAutoRead()).as("three waiting").isFalse();
        answer(1, "two");
        assertThat(channel.config().isAutoRead()).as("two waiting: half").isTrue();
    }
}
