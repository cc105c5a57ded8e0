package io.sluice.filter.routing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.filter.records.ProduceRefusal;
import io.sluice.filter.records.RecordKeys;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Produce to virtual topics: every record's key must be one of the virtual topic's keys, or the partition is
 * refused with INVALID_RECORD (as a broker refuses a keyless record for a compacted topic) and none of its
 * records is written; the other partitions of the request are produced. Accepted partitions are written to the
 * real topic under the same partition number.
 *
 * <p>One connection writes a routed real topic through one name only: an idempotent producer numbers its
 * batches per partition it knows by name, and the broker numbers them per real partition, so writing
 * {@code scores} partition 0 as both {@code scores.results} and {@code scores.live.football} would look to the
 * broker like sequence numbers going backwards. The second name is refused with INVALID_RECORD.</p>
 */
final class ProduceRouting {

    private static final int KEY_SHOWN = 64;

    private final RouteTable routes;
    private final RecordReaders readers;
    private final RoutingMetrics metrics;
    /** Real topic → the name this connection writes it through. */
    private final Map<String, String> writtenAs = new HashMap<>();

    ProduceRouting(RouteTable routes, RecordReaders readers, RoutingMetrics metrics) {
        this.routes = routes;
        this.readers = readers;
        this.metrics = metrics;
    }

    RequestFilterResult route(ProduceRequestData request, Exchange exchange) {
        if (request.topicData().stream().noneMatch(t -> routes.concerns(t.name()))) {
            return exchange.forward(request);
        }
        List<ProduceRefusal> refused = new ArrayList<>();
        Map<String, String> askedAs = new HashMap<>();
        RecordReader reader = readers.forProduce();
        for (ProduceRequestData.TopicProduceData topic : Renamed.takeAll(request.topicData())) {
            String asked = topic.name();
            Optional<View> found = routes.view(asked);
            if (found.isEmpty()) {
                refuseAll(topic, Errors.UNKNOWN_TOPIC_OR_PARTITION, null, refused);
                continue;
            }
            View view = found.get();
            if (routes.isBehindARoute(view.topic())) {
                String earlier = writtenAs.putIfAbsent(view.topic(), view.name());
                if (earlier != null && !earlier.equals(view.name())) {
                    refuseAll(topic, Errors.INVALID_RECORD, "this connection already writes the records of '" + earlier + "' to the same real topic; "
                            + "use another producer for '" + view.name() + "'", refused);
                    continue;
                }
            }
            if (!view.admitsAll()) {
                topic.partitionData().removeIf(partition -> {
                    Optional<String> stranger;
                    try {
                        stranger = firstStranger((MemoryRecords) partition.records(), reader, view);
                    } catch (UnreadableRecords e) {
                        // Records whose keys cannot all be read are never passed on as if they were the view's.
                        refused.add(new ProduceRefusal(asked, null, partition.index(), e.error(), e.getMessage()));
                        return true;
                    }
                    stranger.ifPresent(key -> refused.add(new ProduceRefusal(asked, null, partition.index(), Errors.INVALID_RECORD,
                            "record key " + key + " is not a key of topic " + asked + " (keys " + view.keys() + ")")));
                    return stranger.isPresent();
                });
                if (topic.partitionData().isEmpty()) {
                    continue;
                }
            }
            askedAs.put(view.topic(), asked);
            request.topicData().add(topic.setName(view.topic()));
        }
        if (!refused.isEmpty()) {
            metrics.producePartitionsRefused.increment(refused.size());
        }
        if (request.topicData().isEmpty()) {
            ProduceResponseData response = new ProduceResponseData();
            ProduceRefusal.addAll(response, refused);
            return exchange.respond(response);
        }
        if (request.acks() == 0) {
            return exchange.forward(request);
        }
        return exchange.forward(request, message -> {
            ProduceResponseData response = (ProduceResponseData) message;
            for (ProduceResponseData.TopicProduceResponse topic : Renamed.takeAll(response.responses())) {
                response.responses().add(topic.setName(askedAs.getOrDefault(topic.name(), topic.name())));
            }
            ProduceRefusal.addAll(response, refused);
        });
    }

    private static void refuseAll(ProduceRequestData.TopicProduceData topic, Errors error, String message, List<ProduceRefusal> refused) {
        topic.partitionData().forEach(p -> refused.add(new ProduceRefusal(topic.name(), null, p.index(), error, message)));
    }

    /** The first key (shown as text) that is not one of the view's keys, if any. */
    private static Optional<String> firstStranger(MemoryRecords records, RecordReader reader, View view) {
        return RecordKeys.firstRefused(records, reader, view::admits).map(refused -> show(refused.key()));
    }

    private static String show(ByteBuffer key) {
        if (key == null) {
            return "(none)";
        }
        String text = StandardCharsets.UTF_8.decode(key.duplicate()).toString();
        return "'" + (text.length() > KEY_SHOWN ? text.substring(0, KEY_SHOWN) + "…" : text) + "'";
    }
}
