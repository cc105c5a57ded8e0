package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Consumer group offsets of virtual topics. The group coordinator only accepts offsets of real topics, so an
 * offset committed for {@code scores.results} partition 0 is stored as the group's offset of {@code scores}
 * partition 0, its metadata prefixed with the name it was committed under ({@code sluice.topic=scores.results;}).
 * OffsetFetch gives it back under that name, with the prefix removed.
 *
 * <p>A group holds one offset per real partition. A group that reads one real topic under two names would
 * overwrite one name's position with the other's: an OffsetCommit naming one real partition twice is refused
 * for the later name with POLICY_VIOLATION, and an offset that was committed under another name is fetched as
 * "no offset" (-1), so the consumer starts where its {@code auto.offset.reset} says instead of at another
 * name's position. Offsets committed without the proxy (no prefix) are given to every name.</p>
 */
final class CommittedOffsets {

    static final String TAG = "sluice.topic=";
    private static final char TAG_END = ';';

    private final RouteTable routes;

    CommittedOffsets(RouteTable routes) {
        this.routes = routes;
    }

    // ---- OffsetCommit (v2-v9: topics by name) ----

    private record Committed(String name, int partition, Errors refusal) {
    }

    RequestFilterResult commit(OffsetCommitRequestData request, Exchange exchange) {
        if (request.topics().stream().noneMatch(t -> routes.concerns(t.name()))) {
            return exchange.forward(request);
        }
        List<Committed> committed = new ArrayList<>();
        Map<String, OffsetCommitRequestData.OffsetCommitRequestTopic> realTopics = new LinkedHashMap<>();
        Map<String, String> firstName = new HashMap<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : request.topics()) {
            Optional<View> view = routes.view(topic.name());
            boolean routed = view.isPresent() && routes.isBehindARoute(view.get().topic());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : topic.partitions()) {
                if (view.isEmpty()) {
                    committed.add(new Committed(topic.name(), p.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION));
                    continue;
                }
                String real = view.get().topic();
                String earlier = firstName.putIfAbsent(real + "/" + p.partitionIndex(), topic.name());
                if (earlier != null) {
                    committed.add(new Committed(topic.name(), p.partitionIndex(), Errors.POLICY_VIOLATION));
                    continue;
                }
                committed.add(new Committed(topic.name(), p.partitionIndex(), null));
                if (routed) {
                    p.setCommittedMetadata(TAG + topic.name() + TAG_END + (p.committedMetadata() == null ? "" : p.committedMetadata()));
                }
                realTopics.computeIfAbsent(real, r -> new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(r)).partitions().add(p);
            }
        }
        request.setTopics(new ArrayList<>(realTopics.values()));
        ResponseShape shape = new ResponseShape(committed, firstName);
        if (realTopics.isEmpty()) {
            return exchange.respond(shape.answer(new OffsetCommitResponseData(), routes));
        }
        return exchange.forward(request, message -> shape.answer((OffsetCommitResponseData) message, routes));
    }

    /** What the client committed, by name, to answer it in its own terms. */
    private record ResponseShape(List<Committed> committed, Map<String, String> firstName) {

        OffsetCommitResponseData answer(OffsetCommitResponseData response, RouteTable routes) {
            Map<String, Short> errors = new HashMap<>();
            response.topics().forEach(t -> t.partitions().forEach(p -> errors.put(t.name() + "/" + p.partitionIndex(), p.errorCode())));
            Map<String, OffsetCommitResponseData.OffsetCommitResponseTopic> byName = new LinkedHashMap<>();
            for (Committed c : committed) {
                short error = c.refusal() != null ? c.refusal().code()
                        : errors.getOrDefault(routes.view(c.name()).map(View::topic).orElse(c.name()) + "/" + c.partition(), Errors.UNKNOWN_SERVER_ERROR.code());
                byName.computeIfAbsent(c.name(), n -> new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(n)).partitions()
                        .add(new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(c.partition()).setErrorCode(error));
            }
            return response.setTopics(new ArrayList<>(byName.values()));
        }
    }

    // ---- OffsetFetch (v8-v9: groups, topics by name) ----

    RequestFilterResult fetch(OffsetFetchRequestData request, Exchange exchange) {
        // Asked names per group; null when the group's offsets of all topics were asked for.
        Map<String, List<OffsetFetchRequestData.OffsetFetchRequestTopics>> asked = new HashMap<>();
        boolean concerned = false;
        for (OffsetFetchRequestData.OffsetFetchRequestGroup group : request.groups()) {
            if (group.topics() == null) {
                asked.put(group.groupId(), null);
                concerned = true;
                continue;
            }
            asked.put(group.groupId(), group.topics());
            Map<String, Set<Integer>> real = new LinkedHashMap<>();
            for (OffsetFetchRequestData.OffsetFetchRequestTopics topic : group.topics()) {
                concerned |= routes.concerns(topic.name());
                routes.view(topic.name()).ifPresent(v -> real.computeIfAbsent(v.topic(), t -> new LinkedHashSet<>()).addAll(topic.partitionIndexes()));
            }
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> realTopics = new ArrayList<>();
            real.forEach((name, partitions) -> realTopics.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(name)
                    .setPartitionIndexes(new ArrayList<>(partitions))));
            group.setTopics(realTopics);
        }
        if (!concerned) {
            // Nothing routed: put the client's own lists back as they were.
            request.groups().forEach(g -> g.setTopics(asked.get(g.groupId())));
            return exchange.forward(request);
        }
        return exchange.forward(request, message -> {
            for (OffsetFetchResponseData.OffsetFetchResponseGroup group : ((OffsetFetchResponseData) message).groups()) {
                if (group.errorCode() != Errors.NONE.code()) {
                    continue;
                }
                List<OffsetFetchRequestData.OffsetFetchRequestTopics> names = asked.get(group.groupId());
                group.setTopics(names == null ? allTopics(group.topics()) : askedTopics(group.topics(), names));
            }
        });
    }

    private List<OffsetFetchResponseData.OffsetFetchResponseTopics> askedTopics(List<OffsetFetchResponseData.OffsetFetchResponseTopics> real,
                                                                               List<OffsetFetchRequestData.OffsetFetchRequestTopics> asked) {
        Map<String, OffsetFetchResponseData.OffsetFetchResponsePartitions> answers = new HashMap<>();
        real.forEach(t -> t.partitions().forEach(p -> answers.put(t.name() + "/" + p.partitionIndex(), p)));
        List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestTopics a : asked) {
            Optional<View> view = routes.view(a.name());
            OffsetFetchResponseData.OffsetFetchResponseTopics topic = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(a.name());
            for (int partition : a.partitionIndexes()) {
                OffsetFetchResponseData.OffsetFetchResponsePartitions answer = view.map(v -> answers.get(v.topic() + "/" + partition)).orElse(null);
                if (answer == null) {
                    topic.partitions().add(noOffset(partition).setErrorCode(view.isEmpty() ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : Errors.NONE.code()));
                    continue;
                }
                OffsetFetchResponseData.OffsetFetchResponsePartitions copy = answer.duplicate();
                String committedAs = committedAs(copy.metadata());
                if (committedAs != null && !committedAs.equals(a.name())) {
                    copy = noOffset(partition);
                } else {
                    copy.setMetadata(untagged(copy.metadata()));
                }
                topic.partitions().add(copy);
            }
            topics.add(topic);
        }
        return topics;
    }

    /** Every offset of the group, each under the name it was committed under; offsets of hidden topics without one are left out. */
    private List<OffsetFetchResponseData.OffsetFetchResponseTopics> allTopics(List<OffsetFetchResponseData.OffsetFetchResponseTopics> real) {
        Map<String, OffsetFetchResponseData.OffsetFetchResponseTopics> byName = new LinkedHashMap<>();
        for (OffsetFetchResponseData.OffsetFetchResponseTopics topic : real) {
            for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : topic.partitions()) {
                String committedAs = committedAs(p.metadata());
                String name = committedAs != null && routes.view(committedAs).map(View::topic).filter(topic.name()::equals).isPresent() ? committedAs : topic.name();
                if (name.equals(topic.name()) && routes.hidden(name)) {
                    continue;
                }
                p.setMetadata(untagged(p.metadata()));
                byName.computeIfAbsent(name, n -> new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(n)).partitions().add(p);
            }
        }
        return new ArrayList<>(byName.values());
    }

    private static OffsetFetchResponseData.OffsetFetchResponsePartitions noOffset(int partition) {
        return new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(partition).setCommittedOffset(-1)
                .setCommittedLeaderEpoch(-1).setMetadata("");
    }

    /** The name an offset was committed under through the proxy, or null. */
    static String committedAs(String metadata) {
        if (metadata == null || !metadata.startsWith(TAG)) {
            return null;
        }
        int end = metadata.indexOf(TAG_END);
        return end < 0 ? null : metadata.substring(TAG.length(), end);
    }

    static String untagged(String metadata) {
        return committedAs(metadata) == null ? metadata : metadata.substring(metadata.indexOf(TAG_END) + 1);
    }
}
