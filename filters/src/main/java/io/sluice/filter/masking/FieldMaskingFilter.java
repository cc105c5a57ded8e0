package io.sluice.filter.masking;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.filter.records.FetchedRecords;
import io.sluice.format.Codec;
import io.sluice.format.Formats;
import io.sluice.format.JsonCodec;
import io.sluice.format.mask.ValueMask;
import io.sluice.proxy.filter.FetchResponseFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.ShareFetchResponseFilter;

/**
 * One connection's FieldMasking: the records of Fetch and ShareFetch responses on the rules' topics are masked for this
 * connection's principal ({@link PartitionMasker}); topics no rule names, and readers who may see every field, pass
 * untouched and undecoded. A topic the response names only by an id the proxy cannot resolve gets UNKNOWN_TOPIC_ID and
 * no records: it might be a masked one.
 */
final class FieldMaskingFilter implements FetchResponseFilter, ShareFetchResponseFilter {

    private final FieldMasking.Shared shared;
    private final Codec json;

    FieldMaskingFilter(FieldMasking.Shared shared) {
        this.shared = shared;
        this.json = new JsonCodec(shared.limits());
    }

    @Override
    public CompletionStage<ResponseFilterResult> onFetchResponse(short apiVersion, ResponseHeaderData header, FetchResponseData response,
                                                                 FilterContext context) {
        return mask(header, response, FetchedRecords.of(response), context);
    }

    @Override
    public CompletionStage<ResponseFilterResult> onShareFetchResponse(short apiVersion, ResponseHeaderData header, ShareFetchResponseData response,
                                                                      FilterContext context) {
        return mask(header, response, FetchedRecords.of(response), context);
    }

    private CompletionStage<ResponseFilterResult> mask(ResponseHeaderData header, ApiMessage response, List<FetchedRecords.Topic> topics,
                                                       FilterContext context) {
        List<Uuid> ids = FetchedRecords.unnamedIds(topics);
        if (ids.isEmpty() && topics.stream().noneMatch(t -> shared.masks().names(t.name()))) {
            return context.responseFilterResultBuilder().forward(header, response).completed();
        }
        CompletableFuture<Map<Uuid, String>> names = ids.isEmpty() ? CompletableFuture.completedFuture(Map.of())
                : context.topicNames(ids).toCompletableFuture();
        PartitionMasker masker = new PartitionMasker(shared, context);
        Set<FetchedRecords.Partition> done = Collections.newSetFromMap(new IdentityHashMap<>());
        CompletableFuture<Void> finished = names.isDone() ? names.thenCompose(n -> pass(topics, n, masker, done, context))
                : names.thenComposeAsync(n -> pass(topics, n, masker, done, context), context.eventLoop());
        return finished.thenApply(ignored -> context.responseFilterResultBuilder().forward(header, response).build());
    }

    /**
     * Masks every partition not done yet. One whose records name a schema the node has not fetched yet is tried again
     * once it is here, back on the event loop; in the steady state every schema is cached and this is one pass.
     */
    private CompletableFuture<Void> pass(List<FetchedRecords.Topic> topics, Map<Uuid, String> names, PartitionMasker masker,
                                         Set<FetchedRecords.Partition> done, FilterContext context) {
        List<CompletableFuture<Void>> waits = new ArrayList<>(0);
        for (FetchedRecords.Topic topic : topics) {
            String name = topic.name() != null && !topic.name().isEmpty() ? topic.name() : names.get(topic.id());
            ValueMask mask = name == null ? null : masker.maskFor(name);
            Codec codec = name == null || mask == null ? null : codecOf(name);
            for (FetchedRecords.Partition partition : topic.partitions()) {
                if (done.contains(partition) || !(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    continue;
                }
                if (name == null) {
                    partition.fail(Errors.UNKNOWN_TOPIC_ID);
                    done.add(partition);
                    continue;
                }
                if (mask == null) {
                    done.add(partition);
                    continue;
                }
                CompletableFuture<Void> pending = masker.mask(name, partition, records, mask, codec);
                if (pending == null) {
                    done.add(partition);
                } else {
                    waits.add(pending);
                }
            }
        }
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new))
                .thenComposeAsync(ready -> pass(topics, names, masker, done, context), context.eventLoop());
    }

    private Codec codecOf(String topic) {
        Formats.TopicFormat format = shared.formats().forTopic(topic);
        return format == null || format.value() == null ? json : format.value();
    }
}
