package io.sluice.proxy.codec;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.netty.buffer.ByteBuf;
import io.sluice.proxy.filter.ResponseHook;
import io.sluice.proxy.filter.ResponseSizeHook;

/** A request decoded into kafka-clients' generated classes, for filters to read and change. */
public final class DecodedRequest implements RequestFrame {

    private final boolean hasResponse;
    private final OutOfBand outOfBand;
    private ByteBuf backing;
    private RequestHeaderData header;
    private ApiMessage body;
    private List<AttachedHook> responseHooks = List.of();
    private List<ResponseSizeHook> sizeHooks = List.of();

    /**
     * @param backing the frame the message was decoded from, or null: records in the body are views of it,
     *                so it stays retained until the request is encoded upstream or discarded
     */
    public DecodedRequest(RequestHeaderData header, ApiMessage body, boolean hasResponse, OutOfBand outOfBand, ByteBuf backing) {
        this.backing = backing;
        this.header = header;
        this.body = body;
        this.hasResponse = hasResponse;
        this.outOfBand = outOfBand;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.forId(body.apiKey());
    }

    @Override
    public short apiVersion() {
        return header.requestApiVersion();
    }

    @Override
    public int correlationId() {
        return header.correlationId();
    }

    @Override
    public boolean hasResponse() {
        return hasResponse;
    }

    public RequestHeaderData header() {
        return header;
    }

    public ApiMessage body() {
        return body;
    }

    /** Null for client requests. */
    public OutOfBand outOfBand() {
        return outOfBand;
    }

    /** Replaces header and body with what a filter forwarded (it may have built new objects). */
    public void replace(RequestHeaderData newHeader, ApiMessage newBody) {
        if (newBody.apiKey() != body.apiKey()) {
            throw new IllegalArgumentException("a filter forwarded " + ApiKeys.forId(newBody.apiKey()) + " in place of " + apiKey());
        }
        // The correlation id and version are the proxy's bookkeeping, not the filter's to change.
        newHeader.setCorrelationId(header.correlationId());
        newHeader.setRequestApiKey(body.apiKey());
        newHeader.setRequestApiVersion(header.requestApiVersion());
        this.header = newHeader;
        this.body = newBody;
    }

    /** Runs {@code hook} at {@code owner}'s place on this request's response path (see {@link ResponseHook}). */
    public void attachResponseHook(Object owner, ResponseHook hook) {
        if (responseHooks.isEmpty()) {
            responseHooks = new ArrayList<>(2);
        }
        responseHooks.add(new AttachedHook(owner, hook));
    }

    /**
     * Runs {@code hook} with the size of this request's response as it arrives (see {@link ResponseSizeHook}).
     *
     * @throws IllegalStateException when this API's response does not begin with {@code throttle_time_ms}
     */
    public void attachResponseSizeHook(ResponseSizeHook hook) {
        if (!ResponseSizeHook.accepts(apiKey(), apiVersion())) {
            throw new IllegalStateException("a response size hook on " + apiKey() + " v" + apiVersion()
                    + ", whose response does not begin with throttle_time_ms");
        }
        if (sizeHooks.isEmpty()) {
            sizeHooks = new ArrayList<>(1);
        }
        sizeHooks.add(hook);
    }

    /** The size hooks filters attached; empty for none. */
    public List<ResponseSizeHook> sizeHooks() {
        return sizeHooks;
    }

    /** The hooks filters attached, in the order they were attached (nearest the client first); empty for none. */
    public List<AttachedHook> responseHooks() {
        return responseHooks;
    }

    @Override
    public void release() {
        if (backing != null) {
            backing.release();
            backing = null;
        }
    }

    @Override
    public String toString() {
        return apiKey() + " v" + apiVersion() + " #" + correlationId() + (outOfBand != null ? " (out-of-band)" : "");
    }
}
