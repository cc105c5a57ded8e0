package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * ListOffsets and OffsetForLeaderEpoch with virtual names. Offsets are the real partition's: a virtual
 * topic's end offset is its real topic's, even when the last records there have other keys (a consumer's lag
 * then counts records it will never see, as on a compacted topic).
 *
 * <p>A request naming one real partition under several names asks the broker once (a broker refuses a
 * partition asked twice) and answers every name; if the names ask different questions of it (two timestamps),
 * the later ones are answered INVALID_REQUEST.</p>
 */
final class OffsetsRouting {

    private final RouteTable routes;

    OffsetsRouting(RouteTable routes) {
        this.routes = routes;
    }

    /** One name a real partition was asked under; {@code conflicting} when it asked something else of it. */
    private record Asked(String name, int partition, boolean conflicting) {
    }

    RequestFilterResult listOffsets(ListOffsetsRequestData request, Exchange exchange) {
        if (!touchesRoutes(request.topics().stream().map(ListOffsetsRequestData.ListOffsetsTopic::name).toList())) {
            return exchange.forward(request);
        }
        Map<String, List<Asked>> askedByReal = new LinkedHashMap<>();
        List<Asked> unknown = new ArrayList<>();
        Map<String, ListOffsetsRequestData.ListOffsetsTopic> realTopics = new LinkedHashMap<>();
        Map<String, ListOffsetsRequestData.ListOffsetsPartition> first = new HashMap<>();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
            Optional<View> view = routes.view(topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                if (view.isEmpty()) {
                    unknown.add(new Asked(topic.name(), p.partitionIndex(), false));
                    continue;
                }
                String real = view.get().topic();
                ListOffsetsRequestData.ListOffsetsPartition earlier = first.putIfAbsent(real + "/" + p.partitionIndex(), p);
                boolean conflicting = earlier != null && (earlier.timestamp() != p.timestamp() || earlier.currentLeaderEpoch() != p.currentLeaderEpoch());
                askedByReal.computeIfAbsent(real, r -> new ArrayList<>()).add(new Asked(topic.name(), p.partitionIndex(), conflicting));
                if (earlier == null) {
                    realTopics.computeIfAbsent(real, r -> new ListOffsetsRequestData.ListOffsetsTopic().setName(r)).partitions().add(p);
                }
            }
        }
        request.setTopics(new ArrayList<>(realTopics.values()));
        return exchange.forward(request, message -> {
            ListOffsetsResponseData response = (ListOffsetsResponseData) message;
            Map<String, ListOffsetsResponseData.ListOffsetsPartitionResponse> answers = new HashMap<>();
            response.topics().forEach(t -> t.partitions().forEach(p -> answers.put(t.name() + "/" + p.partitionIndex(), p)));
            Map<String, ListOffsetsResponseData.ListOffsetsTopicResponse> byName = new LinkedHashMap<>();
            askedByReal.forEach((real, asked) -> asked.forEach(a -> {
                ListOffsetsResponseData.ListOffsetsPartitionResponse answer = answers.get(real + "/" + a.partition());
                ListOffsetsResponseData.ListOffsetsPartitionResponse copy = answer == null || a.conflicting()
                        ? listOffsetsError(a.partition(), answer == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_REQUEST)
                        : answer.duplicate();
                byName.computeIfAbsent(a.name(), n -> new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(n)).partitions().add(copy);
            }));
            unknown.forEach(a -> byName.computeIfAbsent(a.name(), n -> new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(n)).partitions()
                    .add(listOffsetsError(a.partition(), Errors.UNKNOWN_TOPIC_OR_PARTITION)));
            response.setTopics(new ArrayList<>(byName.values()));
        });
    }

    private static ListOffsetsResponseData.ListOffsetsPartitionResponse listOffsetsError(int partition, Errors error) {
        return new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(partition).setErrorCode(error.code())
                .setOffset(-1).setTimestamp(-1).setLeaderEpoch(-1);
    }

    RequestFilterResult offsetForLeaderEpoch(OffsetForLeaderEpochRequestData request, Exchange exchange) {
        if (!touchesRoutes(request.topics().stream().map(OffsetForLeaderEpochRequestData.OffsetForLeaderTopic::topic).toList())) {
            return exchange.forward(request);
        }
        Map<String, List<Asked>> askedByReal = new LinkedHashMap<>();
        List<Asked> unknown = new ArrayList<>();
        Map<String, OffsetForLeaderEpochRequestData.OffsetForLeaderPartition> first = new HashMap<>();
        Map<String, OffsetForLeaderEpochRequestData.OffsetForLeaderTopic> realTopics = new LinkedHashMap<>();
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : Renamed.takeAll(request.topics())) {
            Optional<View> view = routes.view(topic.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : topic.partitions()) {
                if (view.isEmpty()) {
                    unknown.add(new Asked(topic.topic(), p.partition(), false));
                    continue;
                }
                String real = view.get().topic();
                OffsetForLeaderEpochRequestData.OffsetForLeaderPartition earlier = first.putIfAbsent(real + "/" + p.partition(), p);
                boolean conflicting = earlier != null && !Objects.equals(earlier, p);
                askedByReal.computeIfAbsent(real, r -> new ArrayList<>()).add(new Asked(topic.topic(), p.partition(), conflicting));
                if (earlier == null) {
                    realTopics.computeIfAbsent(real, r -> new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(r)).partitions().add(p);
                }
            }
        }
        realTopics.values().forEach(request.topics()::add);
        return exchange.forward(request, message -> {
            OffsetForLeaderEpochResponseData response = (OffsetForLeaderEpochResponseData) message;
            Map<String, OffsetForLeaderEpochResponseData.EpochEndOffset> answers = new HashMap<>();
            Renamed.takeAll(response.topics()).forEach(t -> t.partitions().forEach(p -> answers.put(t.topic() + "/" + p.partition(), p)));
            Map<String, OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult> byName = new LinkedHashMap<>();
            askedByReal.forEach((real, asked) -> asked.forEach(a -> {
                OffsetForLeaderEpochResponseData.EpochEndOffset answer = answers.get(real + "/" + a.partition());
                OffsetForLeaderEpochResponseData.EpochEndOffset copy = answer == null || a.conflicting()
                        ? epochError(a.partition(), answer == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_REQUEST)
                        : answer.duplicate();
                byName.computeIfAbsent(a.name(), n -> new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(n)).partitions().add(copy);
            }));
            unknown.forEach(a -> byName.computeIfAbsent(a.name(), n -> new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(n))
                    .partitions().add(epochError(a.partition(), Errors.UNKNOWN_TOPIC_OR_PARTITION)));
            byName.values().forEach(response.topics()::add);
        });
    }

    private static OffsetForLeaderEpochResponseData.EpochEndOffset epochError(int partition, Errors error) {
        return new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(partition).setErrorCode(error.code()).setLeaderEpoch(-1).setEndOffset(-1);
    }

    private boolean touchesRoutes(List<String> names) {
        return names.stream().anyMatch(routes::concerns);
    }
}
