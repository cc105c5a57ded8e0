package io.sluice.proxy.runtime;

import java.util.ArrayDeque;
import java.util.Iterator;

import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.sluice.proxy.codec.AnsweredRequest;
import io.sluice.proxy.codec.RequestDropped;
import io.sluice.proxy.codec.RequestFrame;
import io.sluice.proxy.codec.ResponseFrame;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/**
 * Delivers responses in the order the client sent the requests, as Kafka clients require. Responses from
 * the broker already come in order; a filter that answers a request itself, or takes its time with one,
 * can overtake, so a response that is early waits here for the ones before it. Also where request latency
 * is measured: from the request leaving the decoder to its response reaching the encoder.
 */
final class ResponseSequencer extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ResponseSequencer.class);

    private static final class Slot {
        final int correlationId;
        final ApiKeys apiKey;
        final long startNanos;
        Object response;
        ChannelPromise promise;

        Slot(int correlationId, ApiKeys apiKey, long startNanos) {
            this.correlationId = correlationId;
            this.apiKey = apiKey;
            this.startNanos = startNanos;
        }
    }

    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private final VirtualClusterMetrics metrics;
    private final ProxyConnection connection;

    ResponseSequencer(VirtualClusterMetrics metrics, ProxyConnection connection) {
        this.metrics = metrics;
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof AnsweredRequest answered) {
            slots.addLast(new Slot(answered.correlationId(), answered.apiKey(), System.nanoTime()));
            connection.requestRead();
            write(ctx, answered.response(), ctx.newPromise());
            ctx.flush();
            return;
        }
        if (msg instanceof RequestFrame request && request.hasResponse()) {
            slots.addLast(new Slot(request.correlationId(), request.apiKey(), System.nanoTime()));
            connection.requestRead();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        int correlationId;
        if (msg instanceof ResponseFrame response) {
            correlationId = response.correlationId();
        } else if (msg instanceof RequestDropped dropped) {
            correlationId = dropped.correlationId();
        } else {
            ctx.write(msg, promise);
            return;
        }
        Slot head = slots.peekFirst();
        if (head != null && head.correlationId == correlationId) {
            slots.pollFirst();
            emit(ctx, head, msg, promise);
            drain(ctx);
            return;
        }
        Slot slot = find(correlationId);
        if (slot == null) {
            // Only possible for a request that expected no response (acks=0) answered by a filter anyway.
            LOG.debug("discarding response #{} that no outstanding request expects", correlationId);
            if (msg instanceof ResponseFrame response) {
                response.release();
            }
            promise.trySuccess();
            return;
        }
        slot.response = msg;
        slot.promise = promise;
    }

    private void drain(ChannelHandlerContext ctx) {
        Slot next;
        while ((next = slots.peekFirst()) != null && next.response != null) {
            slots.pollFirst();
            emit(ctx, next, next.response, next.promise);
        }
    }

    private void emit(ChannelHandlerContext ctx, Slot slot, Object msg, ChannelPromise promise) {
        metrics.requestCompleted(slot.apiKey.id, System.nanoTime() - slot.startNanos);
        if (msg instanceof RequestDropped) {
            promise.trySuccess();
        } else {
            ctx.write(msg, promise);
        }
        connection.responseWritten();
    }

    private Slot find(int correlationId) {
        for (Iterator<Slot> it = slots.iterator(); it.hasNext();) {
            Slot s = it.next();
            if (s.correlationId == correlationId && s.response == null) {
                return s;
            }
        }
        return null;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        for (Slot s : slots) {
            if (s.response instanceof ResponseFrame response) {
                response.release();
            }
        }
        slots.clear();
    }
}
