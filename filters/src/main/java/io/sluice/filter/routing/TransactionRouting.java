package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * AddPartitionsToTxn from clients (v0-v3, topics by name): a transactional producer adds the real partitions
 * its virtual topics write to. Clusters with transactions v2 (KIP-890) need none of this, as producers no longer
 * send it; versions 4 and later are the brokers' own and pass through.
 */
final class TransactionRouting {

    /** AddPartitionsToTxn v4 is broker-to-broker (batched transactions); clients send v0-v3. */
    private static final short CLIENT_VERSIONS_END = 3;

    private final RouteTable routes;

    TransactionRouting(RouteTable routes) {
        this.routes = routes;
    }

    RequestFilterResult addPartitions(AddPartitionsToTxnRequestData request, Exchange exchange) {
        if (exchange.version() > CLIENT_VERSIONS_END || request.v3AndBelowTopics().stream().noneMatch(t -> routes.concerns(t.name()))) {
            return exchange.forward(request);
        }
        Map<String, List<Integer>> asked = new LinkedHashMap<>();
        Map<String, Set<Integer>> real = new LinkedHashMap<>();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : request.v3AndBelowTopics()) {
            asked.put(topic.name(), topic.partitions());
            routes.view(topic.name()).ifPresent(v -> real.computeIfAbsent(v.topic(), t -> new LinkedHashSet<>()).addAll(topic.partitions()));
        }
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        real.forEach((name, partitions) -> topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(name)
                .setPartitions(new ArrayList<>(partitions))));
        request.setV3AndBelowTopics(topics);
        if (topics.isEmpty()) {
            return exchange.respond(answer(new AddPartitionsToTxnResponseData(), asked));
        }
        return exchange.forward(request, message -> answer((AddPartitionsToTxnResponseData) message, asked));
    }

    /** Every asked name and partition with its real partition's result; hidden topics are unknown. */
    private AddPartitionsToTxnResponseData answer(AddPartitionsToTxnResponseData response, Map<String, List<Integer>> asked) {
        Map<String, Short> errors = new LinkedHashMap<>();
        response.resultsByTopicV3AndBelow().forEach(t -> t.resultsByPartition().forEach(p -> errors.put(t.name() + "/" + p.partitionIndex(),
                p.partitionErrorCode())));
        AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection();
        asked.forEach((name, partitions) -> {
            Optional<View> view = routes.view(name);
            AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult topic = new AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult().setName(name);
            for (int partition : partitions) {
                short error = view.map(v -> errors.getOrDefault(v.topic() + "/" + partition, Errors.UNKNOWN_SERVER_ERROR.code()))
                        .orElse(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                topic.resultsByPartition().add(new AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult().setPartitionIndex(partition)
                        .setPartitionErrorCode(error));
            }
            results.add(topic);
        });
        return response.setResultsByTopicV3AndBelow(results);
    }
}
