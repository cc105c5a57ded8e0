package io.sluice.filter.encryption;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Produce partitions the filter answers itself while the rest of the request goes on to the broker, as a broker
 * refuses one partition's records and appends the others': the refused partitions are taken out of the request and
 * their answers added to the broker's response (or make the whole response, when nothing is left to forward).
 * One per Produce request, on the connection's event loop.
 */
final class RefusedPartitions {

    private record Refused(String topic, Uuid topicId, int partition, Errors error, String message) {
    }

    private final List<Refused> refused = new ArrayList<>();
    private final Set<ProduceRequestData.PartitionProduceData> removed = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param message for the client (Produce v8+ carries it); names sizes and bounds, never record contents */
    void refuse(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, Errors error, String message) {
        refused.add(new Refused(topic.name(), topic.topicId(), partition.index(), error, message));
        removed.add(partition);
    }

    boolean isEmpty() {
        return refused.isEmpty();
    }

    /** Takes the refused partitions out of {@code produce} and says how the rest is forwarded, or answers it whole. */
    RequestFilterResult result(RequestHeaderData header, ProduceRequestData produce, FilterContext context) {
        List<ProduceRequestData.TopicProduceData> emptied = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            topic.partitionData().removeIf(removed::contains);
            if (topic.partitionData().isEmpty()) {
                emptied.add(topic);
            }
        }
        emptied.forEach(produce.topicData()::remove);
        if (produce.topicData().isEmpty()) {
            // With acks=0 the proxy writes no answer: the client expects none.
            ProduceResponseData response = new ProduceResponseData();
            addTo(response);
            return context.requestFilterResultBuilder().shortCircuitResponse(response).build();
        }
        if (produce.acks() == 0) {
            return context.requestFilterResultBuilder().forward(header, produce).build();
        }
        return context.requestFilterResultBuilder().forward(header, produce)
                .withResponseHook(ResponseHook.of(response -> addTo((ProduceResponseData) response))).build();
    }

    private void addTo(ProduceResponseData response) {
        for (Refused r : refused) {
            ProduceResponseData.TopicProduceResponse topic = null;
            for (ProduceResponseData.TopicProduceResponse t : response.responses()) {
                if (t.name().equals(r.topic()) && t.topicId().equals(r.topicId())) {
                    topic = t;
                    break;
                }
            }
            if (topic == null) {
                topic = new ProduceResponseData.TopicProduceResponse().setName(r.topic()).setTopicId(r.topicId());
                response.responses().add(topic);
            }
            topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(r.partition())
                    .setErrorCode(r.error().code())
                    .setErrorMessage(r.message())
                    .setBaseOffset(-1)
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(-1));
        }
    }
}
