package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Consumer group offsets of virtual topics (OffsetCommit, TxnOffsetCommit, OffsetFetch). The group coordinator only accepts offsets of real topics, so an
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

    // ---- OffsetCommit (v2-v9) and TxnOffsetCommit: topics by name ----

    RequestFilterResult commit(OffsetCommitRequestData request, Exchange exchange) {
        if (request.topics().stream().noneMatch(t -> routes.concerns(t.name()))) {
            return exchange.forward(request);
        }
        Map<String, List<OffsetCommitRequestData.OffsetCommitRequestPartition>> asked = new LinkedHashMap<>();
        request.topics().forEach(t -> asked.computeIfAbsent(t.name(), n -> new ArrayList<>()).addAll(t.partitions()));
        RoutedCommit<OffsetCommitRequestData.OffsetCommitRequestPartition> routed = route(asked, OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex,
                OffsetCommitRequestData.OffsetCommitRequestPartition::committedMetadata, OffsetCommitRequestData.OffsetCommitRequestPartition::setCommittedMetadata);
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> real = new ArrayList<>();
        routed.byReal().forEach((name, partitions) -> real.add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(name)
                .setPartitions(partitions)));
        request.setTopics(real);
        if (real.isEmpty()) {
            return exchange.respond(offsetCommitAnswer(new OffsetCommitResponseData(), routed));
        }
        return exchange.forward(request, message -> offsetCommitAnswer((OffsetCommitResponseData) message, routed));
    }

    private static OffsetCommitResponseData offsetCommitAnswer(OffsetCommitResponseData response, RoutedCommit<?> routed) {
        Map<String, Short> errors = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p -> errors.put(t.name() + "/" + p.partitionIndex(), p.errorCode())));
        List<OffsetCommitResponseData.OffsetCommitResponseTopic> topics = new ArrayList<>();
        routed.answer(errors).forEach((name, partitions) -> {
            OffsetCommitResponseData.OffsetCommitResponseTopic topic = new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(name);
            partitions.forEach((index, error) -> topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                    .setPartitionIndex(index).setErrorCode(error)));
            topics.add(topic);
        });
        return response.setTopics(topics);
    }

    RequestFilterResult txnCommit(TxnOffsetCommitRequestData request, Exchange exchange) {
        if (request.topics().stream().noneMatch(t -> routes.concerns(t.name()))) {
            return exchange.forward(request);
        }
        Map<String, List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition>> asked = new LinkedHashMap<>();
        request.topics().forEach(t -> asked.computeIfAbsent(t.name(), n -> new ArrayList<>()).addAll(t.partitions()));
        RoutedCommit<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition> routed = route(asked, TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex,
                TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::committedMetadata,
                TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::setCommittedMetadata);
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> real = new ArrayList<>();
        routed.byReal().forEach((name, partitions) -> real.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(name)
                .setPartitions(partitions)));
        request.setTopics(real);
        if (real.isEmpty()) {
            return exchange.respond(txnCommitAnswer(new TxnOffsetCommitResponseData(), routed));
        }
        return exchange.forward(request, message -> txnCommitAnswer((TxnOffsetCommitResponseData) message, routed));
    }

    private static TxnOffsetCommitResponseData txnCommitAnswer(TxnOffsetCommitResponseData response, RoutedCommit<?> routed) {
        Map<String, Short> errors = new HashMap<>();
        response.topics().forEach(t -> t.partitions().forEach(p -> errors.put(t.name() + "/" + p.partitionIndex(), p.errorCode())));
        List<TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic> topics = new ArrayList<>();
        routed.answer(errors).forEach((name, partitions) -> {
            TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic topic = new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(name);
            partitions.forEach((index, error) -> topic.partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(index).setErrorCode(error)));
            topics.add(topic);
        });
        return response.setTopics(topics);
    }

    /** One partition a client committed, under the name it used; {@code refusal} when it was not sent on. */
    private record Committed(String name, String real, int partition, Errors refusal) {
    }

    /** A commit with its partitions regrouped by real topic, remembering what was asked to answer in its terms. */
    private record RoutedCommit<P>(Map<String, List<P>> byReal, List<Committed> committed) {

        /** Error per asked name and partition, given the broker's by real {@code topic/partition}. */
        Map<String, Map<Integer, Short>> answer(Map<String, Short> brokerErrors) {
            Map<String, Map<Integer, Short>> answer = new LinkedHashMap<>();
            for (Committed c : committed) {
                short error = c.refusal() != null ? c.refusal().code() : brokerErrors.getOrDefault(c.real() + "/" + c.partition(), Errors.UNKNOWN_SERVER_ERROR.code());
                answer.computeIfAbsent(c.name(), n -> new LinkedHashMap<>()).put(c.partition(), error);
            }
            return answer;
        }
    }

    /**
     * Routes the partitions of a commit (of either API: {@code P} is its partition type). A hidden topic is refused
     * with UNKNOWN_TOPIC_OR_PARTITION, a real partition named a second time with POLICY_VIOLATION; offsets of routed
     * real topics are tagged with the name they are committed under.
     */
    private <P> RoutedCommit<P> route(Map<String, List<P>> asked, ToIntFunction<P> index, Function<P, String> metadata, BiConsumer<P, String> setMetadata) {
        Map<String, List<P>> byReal = new LinkedHashMap<>();
        List<Committed> committed = new ArrayList<>();
        Map<String, String> firstName = new HashMap<>();
        asked.forEach((name, partitions) -> {
            Optional<View> view = routes.view(name);
            boolean tagged = view.isPresent() && routes.isBehindARoute(view.get().topic());
            for (P p : partitions) {
                int partition = index.applyAsInt(p);
                if (view.isEmpty()) {
                    committed.add(new Committed(name, name, partition, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                    continue;
                }
                String real = view.get().topic();
                if (firstName.putIfAbsent(real + "/" + partition, name) != null) {
                    committed.add(new Committed(name, real, partition, Errors.POLICY_VIOLATION));
                    continue;
                }
                committed.add(new Committed(name, real, partition, null));
                if (tagged) {
                    String original = metadata.apply(p);
                    setMetadata.accept(p, TAG + name + TAG_END + (original == null ? "" : original));
                }
                byReal.computeIfAbsent(real, r -> new ArrayList<>()).add(p);
            }
        });
        return new RoutedCommit<>(byReal, committed);
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
