package io.sluice.filter.records;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Produce partitions a filter answers itself while the rest of the request goes on to the broker, as a broker refuses
 * one partition's records and appends the others': the refused partitions are taken out of the request and their
 * answers added to the broker's response (or make the whole response, when nothing is left to forward). The one home
 * of that step (RecordEncryption, JwtAuth, RecordValidation); one per Produce request, on the connection's event loop.
 */
public final class RefusedPartitions {

    private final List<ProduceRefusal> refused = new ArrayList<>();
    private final Set<ProduceRequestData.PartitionProduceData> removed = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param message for the client (Produce v8+ carries it); names sizes and bounds, never record contents */
    public void refuse(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, Errors error, String message) {
        refuse(topic, partition, error, message, List.of());
    }

    /** @param recordErrors the records that made it fail, by index, with their reasons (Produce v8+ carries them) */
    public void refuse(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, Errors error, String message,
                       List<ProduceRefusal.RecordError> recordErrors) {
        refused.add(new ProduceRefusal(topic.name(), topic.topicId(), partition.index(), error, message, recordErrors));
        removed.add(partition);
    }

    public boolean isEmpty() {
        return refused.isEmpty();
    }

    /** The refusals so far, for meters and logs. */
    public List<ProduceRefusal> refusals() {
        return List.copyOf(refused);
    }

    /**
     * Takes the refused partitions (and topics left without partitions) out of {@code produce}; returns the whole answer
     * when nothing is left to forward, else null ({@link #responseHook} then completes the broker's answer).
     */
    public ProduceResponseData takeOut(ProduceRequestData produce) {
        List<ProduceRequestData.TopicProduceData> emptied = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            topic.partitionData().removeIf(removed::contains);
            if (topic.partitionData().isEmpty()) {
                emptied.add(topic);
            }
        }
        emptied.forEach(produce.topicData()::remove);
        if (!produce.topicData().isEmpty()) {
            return null;
        }
        ProduceResponseData response = new ProduceResponseData();
        ProduceRefusal.addAll(response, refused);
        return response;
    }

    /** What adds the refusals to the broker's answer to the rest; null for acks=0, which has no answer. */
    public ResponseHook responseHook(ProduceRequestData produce) {
        if (produce.acks() == 0) {
            return null;
        }
        return ResponseHook.of(response -> ProduceRefusal.addAll((ProduceResponseData) response, refused));
    }

    /** Takes the refused partitions out of {@code produce} and says how the rest is forwarded, or answers it whole. */
    public RequestFilterResult result(RequestHeaderData header, ProduceRequestData produce, FilterContext context) {
        ProduceResponseData whole = takeOut(produce);
        if (whole != null) {
            // With acks=0 the proxy writes no answer: the client expects none.
            return context.requestFilterResultBuilder().shortCircuitResponse(whole).build();
        }
        ResponseHook hook = responseHook(produce);
        if (hook == null) {
            return context.requestFilterResultBuilder().forward(header, produce).build();
        }
        return context.requestFilterResultBuilder().forward(header, produce).withResponseHook(hook).build();
    }
}
