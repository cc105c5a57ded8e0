package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.requests.FetchMetadata;

import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Fetch from virtual topics: the real partitions are fetched, and each virtual topic gets the records whose
 * keys are its own. The others are dropped with {@link BatchRewriter#DROP}, which keeps every batch's offset
 * range, so a consumer's position moves past them and it commits and resumes as on a compacted topic.
 *
 * <p>A request may name one real partition through several names ({@code scores.results} and
 * {@code scores.live.football}, both partition 0 of {@code scores}): the real partition is fetched once from
 * the lowest of their positions, and every name gets the batches with its keys. Records before a consumer's own
 * position are skipped by the consumer itself, as it skips the start of a batch the broker returns whole.</p>
 *
 * <p>Fetch sessions (KIP-227) are turned off for requests that touch routed topics: a session remembers
 * partitions by name across requests, and one real partition under several names cannot be remembered
 * consistently. Such requests are sent sessionless and always list every partition; the client, answered with
 * session id 0, keeps sending full requests.</p>
 */
final class FetchRouting {

    private final RouteTable routes;
    private final RecordReaders readers;
    private final RoutingMetrics metrics;

    FetchRouting(RouteTable routes, RecordReaders readers, RoutingMetrics metrics) {
        this.routes = routes;
        this.readers = readers;
        this.metrics = metrics;
    }

    /** The names one real partition was asked for under, with the position each asked from. */
    private record Asked(View view, FetchRequestData.FetchPartition partition) {
    }

    RequestFilterResult route(FetchRequestData request, Exchange exchange) {
        if (request.topics().stream().noneMatch(t -> routes.concerns(t.topic()))) {
            return exchange.forward(request);
        }
        // real topic → partition → every name it was asked under
        Map<String, Map<Integer, List<Asked>>> byReal = new LinkedHashMap<>();
        List<FetchResponseData.FetchableTopicResponse> hidden = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            Optional<View> view = routes.view(topic.topic());
            if (view.isEmpty()) {
                hidden.add(refused(topic, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                continue;
            }
            if (RowFilteredTopics.refusesReadOf(exchange.context(), view.get().topic())) {
                hidden.add(refused(topic, Errors.TOPIC_AUTHORIZATION_FAILED));
                continue;
            }
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                byReal.computeIfAbsent(view.get().topic(), t -> new LinkedHashMap<>())
                        .computeIfAbsent(partition.partition(), p -> new ArrayList<>()).add(new Asked(view.get(), partition));
            }
        }
        List<FetchRequestData.FetchTopic> realTopics = new ArrayList<>();
        byReal.forEach((real, partitions) -> {
            FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic(real);
            partitions.values().forEach(asked -> topic.partitions().add(lowest(asked)));
            realTopics.add(topic);
        });
        request.setTopics(realTopics)
                .setSessionId(FetchMetadata.INVALID_SESSION_ID)
                .setSessionEpoch(FetchMetadata.FINAL_EPOCH)
                .setForgottenTopicsData(new ArrayList<>());
        return exchange.forward(request, message -> split((FetchResponseData) message, byReal, hidden));
    }

    /** The position to fetch a real partition from: the lowest any of its names asked for. */
    private static FetchRequestData.FetchPartition lowest(List<Asked> asked) {
        FetchRequestData.FetchPartition lowest = asked.get(0).partition();
        for (Asked a : asked) {
            if (a.partition().fetchOffset() < lowest.fetchOffset()) {
                lowest = a.partition();
            }
        }
        return lowest;
    }

    private void split(FetchResponseData response, Map<String, Map<Integer, List<Asked>>> byReal, List<FetchResponseData.FetchableTopicResponse> hidden) {
        Map<String, FetchResponseData.FetchableTopicResponse> byName = new LinkedHashMap<>();
        RecordReader reader = readers.forFetch();
        for (FetchResponseData.FetchableTopicResponse real : response.responses()) {
            Map<Integer, List<Asked>> partitions = byReal.getOrDefault(real.topic(), Map.of());
            for (FetchResponseData.PartitionData partition : real.partitions()) {
                List<Asked> asked = partitions.getOrDefault(partition.partitionIndex(), List.of(new Asked(View.direct(real.topic()), null)));
                for (int i = 0; i < asked.size(); i++) {
                    View view = asked.get(i).view();
                    // The last name may take the broker's object; the others get copies of it.
                    FetchResponseData.PartitionData copy = i == asked.size() - 1 ? partition : partition.duplicate();
                    keepOwnKeys(copy, view, reader);
                    byName.computeIfAbsent(view.name(), n -> new FetchResponseData.FetchableTopicResponse().setTopic(n)).partitions().add(copy);
                }
            }
        }
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>(byName.values());
        topics.addAll(hidden);
        response.setResponses(topics);
    }

    /** Only complete batches, checked record by record, are kept ({@link BatchRewriter}): never a truncated tail. */
    private void keepOwnKeys(FetchResponseData.PartitionData partition, View view, RecordReader reader) {
        if (view.admitsAll() || !(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
            return;
        }
        int[] dropped = { 0 };
        try {
            partition.setRecords(BatchRewriter.rewrite(records, records.sizeInBytes(), reader, (batch, record) -> {
                if (view.admits(record.key())) {
                    return null;
                }
                dropped[0]++;
                return BatchRewriter.DROP;
            }));
        } catch (UnreadableRecords e) {
            e.answer(partition);
        }
        metrics.recordsDropped.increment(dropped[0]);
    }

    private static FetchResponseData.FetchableTopicResponse refused(FetchRequestData.FetchTopic topic, Errors error) {
        FetchResponseData.FetchableTopicResponse response = new FetchResponseData.FetchableTopicResponse().setTopic(topic.topic());
        for (FetchRequestData.FetchPartition p : topic.partitions()) {
            response.partitions().add(new FetchResponseData.PartitionData()
                    .setPartitionIndex(p.partition())
                    .setErrorCode(error.code())
                    .setHighWatermark(-1)
                    .setLastStableOffset(-1)
                    .setLogStartOffset(-1)
                    .setRecords(MemoryRecords.EMPTY));
        }
        return response;
    }
}
