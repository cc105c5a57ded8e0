package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.sluice.proxy.filter.RequestFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code FilterContext.throttleClient}: the client connection is not read for the time asked (extended, never
 * shortened, by later calls), and the throttle and the proxy's back-pressure each hold reading on their own, so the end
 * of one never resumes reading the other stopped.
 */
class ClientThrottleTest {

    /** Throttles the client for as many milliseconds as the ListOffsets request's replica id says (-1: not at all). */
    private static final RequestFilter THROTTLING = (apiKey, version, header, request, ctx) -> {
        int millis = ((org.apache.kafka.common.message.ListOffsetsRequestData) request).replicaId();
        if (millis > 0) {
            ctx.throttleClient(Duration.ofMillis(millis));
        }
        return ctx.forwardRequest(header, request);
    };

    private static void sendThrottling(FilterPipeline p, int millis) {
        p.send(FilterPipeline.listOffsets().setReplicaId(millis));
    }

    private static void advance(FilterPipeline p, long millis) {
        p.client.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        p.client.runScheduledPendingTasks();
        p.client.runPendingTasks();
    }

    @Test
    void theClientIsNotReadForTheThrottleTimeAndALaterLongerThrottleExtendsIt() {
        try (FilterPipeline p = new FilterPipeline(THROTTLING)) {
            assertThat(p.client.config().isAutoRead()).isTrue();
            sendThrottling(p, 100);
            assertThat(p.client.config().isAutoRead()).as("throttled").isFalse();
            assertThat(p.brokerReceived()).as("the request that caused it goes on").hasSize(1);

            advance(p, 60);
            sendThrottling(p, 20);
            sendThrottling(p, 100);
            advance(p, 99);
            assertThat(p.client.config().isAutoRead()).as("a shorter throttle does not end it early; a longer one extends it").isFalse();
            advance(p, 1);
            assertThat(p.client.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void theEndOfAThrottleDoesNotResumeReadingWhileTheBrokerConnectionIsUnwritable() {
        try (FilterPipeline p = new FilterPipeline(THROTTLING)) {
            sendThrottling(p, 50);
            p.broker.config().setWriteBufferWaterMark(FilterPipeline.SMALL);
            p.broker.write(Unpooled.wrappedBuffer(new byte[32]));
            assertThat(p.broker.isWritable()).isFalse();

            advance(p, 50);
            assertThat(p.client.config().isAutoRead()).as("throttle over, broker connection still full").isFalse();
            p.broker.flush();
            assertThat(p.client.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void theBrokerConnectionDrainingDoesNotResumeReadingAThrottledClient() {
        try (FilterPipeline p = new FilterPipeline(THROTTLING)) {
            p.broker.config().setWriteBufferWaterMark(FilterPipeline.SMALL);
            sendThrottling(p, 50);
            p.broker.write(Unpooled.wrappedBuffer(new byte[32]));
            assertThat(p.broker.isWritable()).isFalse();
            p.broker.flush();
            assertThat(p.broker.isWritable()).isTrue();
            assertThat(p.client.config().isAutoRead()).as("back-pressure over, throttle still on").isFalse();

            advance(p, 50);
            assertThat(p.client.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void aClosedConnectionIsNotResumedAndZeroOrNegativeThrottlesDoNothing() {
        try (FilterPipeline p = new FilterPipeline((RequestFilter) (apiKey, version, header, request, ctx) -> {
            ctx.throttleClient(Duration.ZERO);
            ctx.throttleClient(Duration.ofMillis(-5));
            return ctx.forwardRequest(header, request);
        })) {
            p.send(FilterPipeline.listOffsets());
            assertThat(p.client.config().isAutoRead()).isTrue();
            p.connection.throttleClient(Duration.ofMillis(30));
            p.connection.close("test", null);
            advance(p, 30);
            assertThat(p.client.config().isAutoRead()).as("no resume after close").isFalse();
        }
    }
}
