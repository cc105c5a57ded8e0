package io.sluice.proxy.codec;

import java.util.List;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.netty.buffer.ByteBuf;
import io.sluice.proxy.filter.ResponseHook;

/** A response decoded into kafka-clients' generated classes. */
public final class DecodedResponse implements ResponseFrame {

    private final ApiKeys apiKey;
    private final short apiVersion;
    private final OutOfBand outOfBand;
    private final List<AttachedHook> responseHooks;
    private ByteBuf backing;
    private ResponseHeaderData header;
    private ApiMessage body;

    /** @param backing the frame the message was decoded from (records in it are views of it), or null */
    public DecodedResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage body, OutOfBand outOfBand,
                           ByteBuf backing) {
        this(apiKey, apiVersion, header, body, outOfBand, backing, List.of());
    }

    /** @param responseHooks the hooks filters attached to the request this answers; they run as it passes their owners */
    public DecodedResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage body, OutOfBand outOfBand,
                           ByteBuf backing, List<AttachedHook> responseHooks) {
        this.responseHooks = responseHooks;
        this.backing = backing;
        this.apiKey = apiKey;
        this.apiVersion = apiVersion;
        this.header = header;
        this.body = body;
        this.outOfBand = outOfBand;
    }

    public ApiKeys apiKey() {
        return apiKey;
    }

    public short apiVersion() {
        return apiVersion;
    }

    @Override
    public int correlationId() {
        return header.correlationId();
    }

    public ResponseHeaderData header() {
        return header;
    }

    public ApiMessage body() {
        return body;
    }

    /** Null for responses to client requests. */
    public OutOfBand outOfBand() {
        return outOfBand;
    }

    /** The hook {@code owner} attached to the request, or null; each is handed out once. */
    public ResponseHook takeResponseHook(Object owner) {
        for (int i = 0; i < responseHooks.size(); i++) {
            if (responseHooks.get(i).owner() == owner) {
                return responseHooks.remove(i).hook();
            }
        }
        return null;
    }

    public void replace(ResponseHeaderData newHeader, ApiMessage newBody) {
        if (newBody.apiKey() != apiKey.id) {
            throw new IllegalArgumentException("a filter forwarded " + ApiKeys.forId(newBody.apiKey()) + " in place of " + apiKey);
        }
        newHeader.setCorrelationId(header.correlationId());
        this.header = newHeader;
        this.body = newBody;
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
        return apiKey + " v" + apiVersion + " response #" + correlationId() + (outOfBand != null ? " (out-of-band)" : "");
    }
}
