package io.sluice.filter.records;

import java.util.List;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.MemoryRecords;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A Produce answered partly: what is taken out of the request, and what the client's answer then says. */
class RefusedPartitionsTest {

    private static ProduceRequestData produce(short acks) {
        ProduceRequestData request = new ProduceRequestData().setAcks(acks);
        ProduceRequestData.TopicProduceData orders = new ProduceRequestData.TopicProduceData().setName("orders");
        orders.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.EMPTY));
        orders.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(MemoryRecords.EMPTY));
        ProduceRequestData.TopicProduceData audit = new ProduceRequestData.TopicProduceData().setName("audit");
        audit.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.EMPTY));
        request.topicData().add(orders);
        request.topicData().add(audit);
        return request;
    }

    @Test
    void refusedPartitionsLeaveTheRequestAndTheirAnswersWithTheirRecordErrorsJoinTheBrokers() {
        ProduceRequestData request = produce((short) -1);
        RefusedPartitions refused = new RefusedPartitions();
        ProduceRequestData.TopicProduceData orders = topic(request, "orders");
        ProduceRequestData.TopicProduceData audit = topic(request, "audit");
        refused.refuse(orders, orders.partitionData().get(1), Errors.INVALID_RECORD, "2 of 3 records refused",
                List.of(new ProduceRefusal.RecordError(0, "unknown schema id 7"), new ProduceRefusal.RecordError(2, "truncated")));
        refused.refuse(audit, audit.partitionData().get(0), Errors.INVALID_RECORD, null);

        assertThat(refused.takeOut(request)).as("orders-0 is left to forward").isNull();
        assertThat(request.topicData()).extracting(ProduceRequestData.TopicProduceData::name).containsExactly("orders");
        assertThat(topic(request, "orders").partitionData()).extracting(ProduceRequestData.PartitionProduceData::index)
                .containsExactly(0);

        ProduceResponseData broker = new ProduceResponseData();
        broker.responses().add(new ProduceResponseData.TopicProduceResponse().setName("orders"));
        broker.responses().find("orders", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses()
                .add(new ProduceResponseData.PartitionProduceResponse().setIndex(0).setBaseOffset(42));
        refused.responseHook(request).onResponse(broker);

        ProduceResponseData.PartitionProduceResponse orders1 = broker.responses().find("orders", org.apache.kafka.common.Uuid.ZERO_UUID)
                .partitionResponses().get(1);
        assertThat(orders1.index()).isEqualTo(1);
        assertThat(orders1.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(orders1.errorMessage()).isEqualTo("2 of 3 records refused");
        assertThat(orders1.recordErrors()).extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex,
                ProduceResponseData.BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, "unknown schema id 7"), org.assertj.core.groups.Tuple.tuple(2, "truncated"));
        assertThat(broker.responses().find("audit", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses().get(0).recordErrors()).isEmpty();

        // Written at v7 (no record_errors there, the field is ignorable) and at v8 (carried).
        ProduceResponseData v7 = roundTrip(broker, (short) 7);
        assertThat(v7.responses().find("orders", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses().get(1).recordErrors()).isEmpty();
        ProduceResponseData v8 = roundTrip(broker, (short) 8);
        assertThat(v8.responses().find("orders", org.apache.kafka.common.Uuid.ZERO_UUID).partitionResponses().get(1).recordErrors()).hasSize(2);
    }

    @Test
    void aRequestRefusedWholeIsAnsweredHereAndAcksZeroGetsNoHook() {
        ProduceRequestData request = produce((short) 0);
        RefusedPartitions refused = new RefusedPartitions();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            topic.partitionData().forEach(p -> refused.refuse(topic, p, Errors.INVALID_RECORD, "no"));
        }
        ProduceResponseData whole = refused.takeOut(request);
        assertThat(whole.responses()).extracting(ProduceResponseData.TopicProduceResponse::name).containsExactly("orders", "audit");
        assertThat(request.topicData()).isEmpty();
        assertThat(refused.refusals()).hasSize(3);

        ProduceRequestData some = produce((short) 0);
        RefusedPartitions one = new RefusedPartitions();
        one.refuse(topic(some, "audit"), topic(some, "audit").partitionData().get(0), Errors.INVALID_RECORD, null);
        assertThat(one.takeOut(some)).isNull();
        assertThat(one.responseHook(some)).as("acks=0: the broker sends no answer to complete").isNull();
    }

    private static ProduceResponseData roundTrip(ProduceResponseData response, short version) {
        return new ProduceResponseData(new org.apache.kafka.common.protocol.ByteBufferAccessor(
                MessageUtil.toByteBufferAccessor(response, version).buffer()), version);
    }

    private static ProduceRequestData.TopicProduceData topic(ProduceRequestData request, String name) {
        return request.topicData().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }
}
