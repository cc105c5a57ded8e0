package io.sluice.proxy.filter;

import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorResponsesTest {

    @Test
    void anErrorMessageQuotingALongClientStringIsCutSoTheResponseCanBeWritten() {
        String id = "x".repeat(Short.MAX_VALUE);
        ProduceRequestData produce = new ProduceRequestData().setTransactionalId(id).setAcks((short) -1).setTimeoutMs(1000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(org.apache.kafka.common.record.MemoryRecords.EMPTY));
        produce.topicData().add(topic);

        ProduceResponseData response = (ProduceResponseData) ErrorResponses.forRequest((short) 11, produce,
                new TransactionalIdAuthorizationException("not permitted to use transactional id " + id));

        ProduceResponseData.PartitionProduceResponse partition = response.responses().iterator().next().partitionResponses().get(0);
        assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        assertThat(partition.errorMessage()).startsWith("not permitted to use transactional id xxx").hasSize(ErrorResponses.MAX_MESSAGE_CHARS);
        assertThat(MessageUtil.toByteBufferAccessor(response, ApiKeys.PRODUCE.latestVersion()).buffer().remaining()).isPositive();
    }

    @Test
    void aShortMessageIsKeptAsItIs() {
        TransactionalIdAuthorizationException error = new TransactionalIdAuthorizationException("not permitted to use transactional id t1");
        assertThat(ErrorResponses.bounded(error)).isSameAs(error);
    }
}
