package io.sluice.proxy.codec;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Requests and responses no filter needs decoded reach the other side as the bytes that came in, only the correlation
 * id changed; those a filter (or the proxy's own address rewriting) needs are decoded.
 */
class ForwardAsReceivedTest {

    private static final short PRODUCE_VERSION = 11;
    private static final int CLIENT_ID = 41;
    private static final int UPSTREAM_ID = 7;
    /** The id a fresh tracker gives its first request, so the broker's response to it. */
    private static final int FIRST_UPSTREAM_ID = 0;

    private EmbeddedChannel channel;

    @AfterEach
    void close() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void aRequestNoFilterHandlesReachesTheBrokerByteIdenticalButItsCorrelationId() {
        byte[] received = bytes(produceRequest());
        channel = new EmbeddedChannel(new RequestDecoder(policy(false, false), Integer.MAX_VALUE));

        channel.writeInbound(wrap(received));
        OpaqueRequest request = channel.readInbound();
        ByteBuf sent = request.takeFrame(UPSTREAM_ID);

        assertThat(request.apiKey()).isEqualTo(ApiKeys.PRODUCE);
        assertThat(request.correlationId()).isEqualTo(CLIENT_ID);
        assertThat(sent.getInt(sent.readerIndex() + OpaqueRequest.CORRELATION_ID_OFFSET)).isEqualTo(UPSTREAM_ID);
        assertThat(withCorrelationId(sent, OpaqueRequest.CORRELATION_ID_OFFSET, CLIENT_ID)).isEqualTo(received);
        sent.release();
    }

    @Test
    void aRequestAFilterHandlesIsDecoded() {
        channel = new EmbeddedChannel(new RequestDecoder(policy(true, false), Integer.MAX_VALUE));

        channel.writeInbound(wrap(bytes(produceRequest())));
        DecodedRequest request = channel.readInbound();

        assertThat(((ProduceRequestData) request.body()).topicData()).extracting(ProduceRequestData.TopicProduceData::name).containsExactly("orders");
        request.release();
    }

    @Test
    void aResponseDecodedOnlyForLeaderHintsThatHasNoneGoesToTheClientAsReceived() {
        CorrelationTracker tracker = new CorrelationTracker();
        tracker.register(opaqueProduce(), true, true, null);
        byte[] received = bytes(produceResponse(false));
        channel = new EmbeddedChannel(new ResponseDecoder(tracker));

        channel.writeInbound(wrap(received));
        OpaqueResponse response = channel.readInbound();
        ByteBuf toClient = response.takeFrame();

        assertThat(toClient.getInt(toClient.readerIndex() + OpaqueResponse.CORRELATION_ID_OFFSET)).isEqualTo(CLIENT_ID);
        assertThat(withCorrelationId(toClient, OpaqueResponse.CORRELATION_ID_OFFSET, FIRST_UPSTREAM_ID)).isEqualTo(received);
        toClient.release();
    }

    @Test
    void aResponseWithLeaderHintsIsDecodedForTheirRewriting() {
        CorrelationTracker tracker = new CorrelationTracker();
        tracker.register(opaqueProduce(), true, true, null);
        channel = new EmbeddedChannel(new ResponseDecoder(tracker));

        channel.writeInbound(wrap(bytes(produceResponse(true))));
        DecodedResponse response = channel.readInbound();

        assertThat(((ProduceResponseData) response.body()).nodeEndpoints()).extracting(ProduceResponseData.NodeEndpoint::host).containsExactly("broker-1");
        assertThat(response.header().correlationId()).isEqualTo(CLIENT_ID);
        response.release();
    }

    @Test
    void aResponseAFilterHandlesIsDecodedWithOrWithoutLeaderHints() {
        CorrelationTracker tracker = new CorrelationTracker();
        tracker.register(opaqueProduce(), true, false, null);
        channel = new EmbeddedChannel(new ResponseDecoder(tracker));

        channel.writeInbound(wrap(bytes(produceResponse(false))));
        DecodedResponse response = channel.readInbound();

        assertThat(response.body()).isInstanceOf(ProduceResponseData.class);
        response.release();
    }

    private static OpaqueRequest opaqueProduce() {
        return new OpaqueRequest(ApiKeys.PRODUCE, PRODUCE_VERSION, CLIENT_ID, true, null);
    }

    private static ByteBuf produceRequest() {
        ProduceRequestData body = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("orders");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("key".getBytes(), "value".getBytes()))));
        body.topicData().add(topic);
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.PRODUCE.id).setRequestApiVersion(PRODUCE_VERSION)
                .setCorrelationId(CLIENT_ID).setClientId("producer-1");
        return encode(header, ApiKeys.PRODUCE.requestHeaderVersion(PRODUCE_VERSION), body);
    }

    private static ByteBuf produceResponse(boolean leaderHints) {
        ProduceResponseData body = new ProduceResponseData().setThrottleTimeMs(0);
        ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse().setName("orders");
        topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(0).setBaseOffset(12));
        body.responses().add(topic);
        if (leaderHints) {
            body.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(1).setHost("broker-1").setPort(9092));
        }
        return encode(new ResponseHeaderData().setCorrelationId(FIRST_UPSTREAM_ID), ApiKeys.PRODUCE.responseHeaderVersion(PRODUCE_VERSION), body);
    }

    private static ByteBuf encode(Message header, short headerVersion, ApiMessage body) {
        return MessageCodec.encode(UnpooledByteBufAllocator.DEFAULT, header, headerVersion, body, PRODUCE_VERSION);
    }

    private static DecodePolicy policy(boolean requests, boolean responses) {
        return new DecodePolicy() {
            @Override
            public boolean decodeRequest(ApiKeys apiKey, short apiVersion) {
                return requests;
            }

            @Override
            public boolean decodeResponse(ApiKeys apiKey, short apiVersion) {
                return responses;
            }
        };
    }

    private static byte[] bytes(ByteBuf frame) {
        byte[] out = ByteBufUtil.getBytes(frame);
        frame.release();
        return out;
    }

    private static ByteBuf wrap(byte[] frame) {
        return UnpooledByteBufAllocator.DEFAULT.directBuffer(frame.length).writeBytes(frame);
    }

    private static byte[] withCorrelationId(ByteBuf frame, int offset, int id) {
        byte[] out = ByteBufUtil.getBytes(frame);
        out[offset] = (byte) (id >>> 24);
        out[offset + 1] = (byte) (id >>> 16);
        out[offset + 2] = (byte) (id >>> 8);
        out[offset + 3] = (byte) id;
        return out;
    }
}
