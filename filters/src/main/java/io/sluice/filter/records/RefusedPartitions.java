package io.sluice.filter.records;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Produce partitions a filter answers itself while the rest of the request goes on to the broker, as a broker
 * refuses one partition's records and appends the others': the refused partitions are taken out of the request and
 * their answers added to the broker's response (or make the whole response, when nothing is left to forward).
 * The one home of that split for every filter that refuses partitions (JwtAuth's key rules, RecordEncryption,
 * Policies). One per Produce request, on the connection's event loop.
 *
 * <p>With acks=0 the client expects no answer: the rest is forwarded and the refusals are told to nobody (a proxy
 * cannot forward the rest and then close the connection as a broker would without risking the rest).</p>
 */
public final class RefusedPartitions {

    private final List<ProduceRefusal> refused = new ArrayList<>();
    private final Set<ProduceRequestData.PartitionProduceData> removed = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param message for the client (Produce v8+ carries it); names sizes and bounds, never record contents */
    public void refuse(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, Errors error, String message) {
        refuse(topic, partition, error, message, null);
    }

    /** @param record the one record that made the partition refused (Produce v8+ {@code record_errors}), or null */
    public void refuse(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, Errors error, String message,
                       ProduceRefusal.RecordError record) {
        refused.add(new ProduceRefusal(topic.name(), topic.topicId(), partition.index(), error, message, record));
        removed.add(partition);
    }

    public boolean isEmpty() {
        return refused.isEmpty();
    }

    /** The refusals so far, in order. */
    public List<ProduceRefusal> refusals() {
        return Collections.unmodifiableList(refused);
    }

    /** Takes the refused partitions (and topics left without partitions) out of {@code produce}; true when nothing is left. */
    public boolean takeOut(ProduceRequestData produce) {
        List<ProduceRequestData.TopicProduceData> emptied = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            topic.partitionData().removeIf(removed::contains);
            if (topic.partitionData().isEmpty()) {
                emptied.add(topic);
            }
        }
        emptied.forEach(produce.topicData()::remove);
        return produce.topicData().isEmpty();
    }

    /** The whole response, when nothing of the request is left to forward. */
    public ProduceResponseData answer() {
        ProduceResponseData response = new ProduceResponseData();
        ProduceRefusal.addAll(response, refused);
        return response;
    }

    /** Adds the refusals to the broker's response to the rest of the request. */
    public ResponseHook mergeHook() {
        return response -> {
            ProduceRefusal.addAll((ProduceResponseData) response, refused);
            return CompletableFuture.completedFuture(null);
        };
    }

    /** Takes the refused partitions out of {@code produce} and says how the rest is forwarded, or answers it whole. */
    public RequestFilterResult result(RequestHeaderData header, ProduceRequestData produce, FilterContext context) {
        if (takeOut(produce)) {
            // With acks=0 the proxy writes no answer: the client expects none.
            return context.requestFilterResultBuilder().shortCircuitResponse(answer()).build();
        }
        if (produce.acks() == 0) {
            return context.requestFilterResultBuilder().forward(header, produce).build();
        }
        return context.requestFilterResultBuilder().forward(header, produce).withResponseHook(mergeHook()).build();
    }
}
