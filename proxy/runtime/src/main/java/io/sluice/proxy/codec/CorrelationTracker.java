package io.sluice.proxy.codec;

import java.util.ArrayDeque;
import java.util.List;

import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.proxy.filter.ResponseSizeHook;

/**
 * The requests sent on one upstream connection that still await a response. The proxy numbers upstream
 * requests itself (filters add requests of their own), and a broker answers in order, so a FIFO is
 * enough, and a response out of order is a protocol violation.
 */
public final class CorrelationTracker {

    /**
     * What the response decoder needs to know about the request a response answers.
     *
     * @param onlyForLeaderHints the response is decoded only to rewrite leader hints ({@link LeaderHints}): one without
     *                           them is forwarded as received
     */
    public record Pending(int upstreamId, int clientCorrelationId, ApiKeys apiKey, short apiVersion, boolean decodeResponse, OutOfBand outOfBand,
                          List<AttachedHook> responseHooks, List<ResponseSizeHook> sizeHooks, boolean onlyForLeaderHints) {
    }

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private int nextId;

    /**
     * Assigns the upstream correlation id; records the request when a response will come, with the response hooks
     * and size hooks filters attached to it (a request without a response drops them: they never run).
     */
    public int register(RequestFrame request, boolean decodeResponse, OutOfBand outOfBand) {
        return register(request, decodeResponse, false, outOfBand);
    }

    /**
     * As {@link #register(RequestFrame, boolean, OutOfBand)}, saying too whether the response is decoded only for its
     * leader hints; hooks on the request or an out-of-band sender want it decoded whatever it carries.
     */
    public int register(RequestFrame request, boolean decodeResponse, boolean onlyForLeaderHints, OutOfBand outOfBand) {
        int id = nextId++;
        if (nextId < 0) {
            nextId = 0;
        }
        if (request.hasResponse()) {
            List<AttachedHook> hooks = request instanceof DecodedRequest decoded ? decoded.responseHooks() : List.of();
            List<ResponseSizeHook> sizeHooks = request instanceof DecodedRequest decoded ? decoded.sizeHooks() : List.of();
            pending.addLast(new Pending(id, request.correlationId(), request.apiKey(), request.apiVersion(), decodeResponse || !hooks.isEmpty(),
                    outOfBand, hooks, sizeHooks, onlyForLeaderHints && hooks.isEmpty() && outOfBand == null));
        }
        return id;
    }

    public Pending complete(int upstreamId) {
        Pending head = pending.pollFirst();
        if (head == null) {
            throw new ProtocolException(ProtocolException.Reason.UNEXPECTED_RESPONSE, "broker sent response #" + upstreamId + " with no request outstanding");
        }
        if (head.upstreamId() != upstreamId) {
            throw new ProtocolException(ProtocolException.Reason.UNEXPECTED_RESPONSE,
                    "broker sent response #" + upstreamId + " but #" + head.upstreamId() + " (" + head.apiKey() + ") was next");
        }
        return head;
    }


    /** Fails filters' out-of-band requests when the connection ends before their responses came. */
    public void abandon(Throwable cause) {
        Pending p;
        while ((p = pending.pollFirst()) != null) {
            if (p.outOfBand() != null) {
                p.outOfBand().response().completeExceptionally(cause);
            }
        }
    }
}
