package io.sluice.proxy.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Client frames in, {@link RequestFrame}s (or {@link AnsweredRequest}s) out. Reads the request header (api key, version, correlation id)
 * of every frame, rejects APIs and versions kafka-clients cannot describe, and decodes the body only when
 * the {@link DecodePolicy} says a filter wants it.
 */
public final class RequestDecoder extends ChannelInboundHandlerAdapter {

    private static final int HEADER_PREFIX_BYTES = 8;

    private final DecodePolicy policy;
    private final int maxFetchBytes;

    /** @param maxFetchBytes the most a Fetch or ShareFetch may ask for, in total and per partition ({@link FetchBytesLimit}) */
    public RequestDecoder(DecodePolicy policy, int maxFetchBytes) {
        this.policy = policy;
        this.maxFetchBytes = maxFetchBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        Object decoded;
        try {
            decoded = decode(frame);
        } catch (RuntimeException e) {
            frame.release();
            throw e instanceof ProtocolException ? e : new ProtocolException(ProtocolException.Reason.MALFORMED, "undecodable request: " + e, e);
        }
        ctx.fireChannelRead(decoded);
    }

    /** A {@link RequestFrame}, or an {@link AnsweredRequest} when the decoder answers the request itself. */
    private Object decode(ByteBuf frame) {
        int start = frame.readerIndex();
        int size = frame.readableBytes() - 4;
        if (size < HEADER_PREFIX_BYTES) {
            throw new ProtocolException(ProtocolException.Reason.MALFORMED, "request of " + size + " bytes is shorter than a request header");
        }
        short key = frame.getShort(start + 4);
        short version = frame.getShort(start + 6);
        int correlationId = frame.getInt(start + 8);
        if (!ApiKeys.hasId(key)) {
            throw new ProtocolException(ProtocolException.Reason.UNSUPPORTED_API, "unknown API key " + key);
        }
        ApiKeys apiKey = ApiKeys.forId(key);
        if (!apiKey.isVersionSupported(version)) {
            if (apiKey == ApiKeys.API_VERSIONS) {
                // As a broker does: answer in v0 with the versions we do speak, so the client retries with one.
                frame.release();
                return new AnsweredRequest(apiKey, correlationId, unsupportedApiVersions(correlationId));
            }
            throw new ProtocolException(ProtocolException.Reason.UNSUPPORTED_API, apiKey + " version " + version + " is not supported (supported "
                    + apiKey.oldestVersion() + "-" + apiKey.latestVersion() + ")");
        }
        ByteBuffer bytes = frame.nioBuffer(start + 4, size);
        ByteBufferAccessor reader = new ByteBufferAccessor(bytes);
        RequestHeaderData header = new RequestHeaderData(reader, apiKey.requestHeaderVersion(version));
        boolean hasResponse = apiKey != ApiKeys.PRODUCE || ProduceAcks.peek(bytes, version) != 0;
        boolean bounded = FetchBytesLimit.applies(apiKey);
        if (!bounded && !policy.decodeRequest(apiKey, version)) {
            return new OpaqueRequest(apiKey, version, correlationId, hasResponse, frame);
        }
        ApiMessage body = apiKey.messageType.newRequest();
        body.read(reader, version);
        if (body instanceof ProduceRequestData produce) {
            requireRecords(produce);
        }
        // A fetch within the limits that no filter wants decoded still travels as its own bytes: only one that asked
        // for too much is encoded again.
        if (bounded && !FetchBytesLimit.clamp(body, version, maxFetchBytes) && !policy.decodeRequest(apiKey, version)) {
            return new OpaqueRequest(apiKey, version, correlationId, hasResponse, frame);
        }
        return new DecodedRequest(header, body, hasResponse, null, frame);
    }

    /**
     * The schema lets a Produce partition carry null records, but no client sends that and a broker (Kafka 4.2) fails
     * on it while logging the request and then never answers that connection: the request is refused here, once, for
     * every filter that decodes Produce, rather than forwarded to a connection that would hang.
     */
    private static void requireRecords(ProduceRequestData produce) {
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                if (partition.records() == null) {
                    throw new ProtocolException(ProtocolException.Reason.MALFORMED, "Produce partition " + partition.index()
                            + " of a topic carries no records (null)");
                }
            }
        }
    }

    private static DecodedResponse unsupportedApiVersions(int correlationId) {
        ApiVersionsResponseData body = new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        body.apiKeys().add(new ApiVersionsResponseData.ApiVersion()
                .setApiKey(ApiKeys.API_VERSIONS.id)
                .setMinVersion(ApiKeys.API_VERSIONS.oldestVersion())
                .setMaxVersion(ApiKeys.API_VERSIONS.latestVersion()));
        return new DecodedResponse(ApiKeys.API_VERSIONS, (short) 0, new ResponseHeaderData().setCorrelationId(correlationId), body, null, null);
    }
}
