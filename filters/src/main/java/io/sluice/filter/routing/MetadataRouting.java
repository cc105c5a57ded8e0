package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Metadata with virtual names: a virtual topic is described as its real topic is (partitions, leaders,
 * replicas), under its own name and its own topic id; hidden real topics are unknown. Asking for a virtual topic
 * never creates anything: the request is sent with {@code allowAutoTopicCreation} off, and a virtual topic whose
 * real topic does not exist is UNKNOWN_TOPIC_OR_PARTITION.
 *
 * <p>Listing all topics lists, beside the real topics that are not hidden, the virtual topics a route can name
 * from a real topic ({@code scores.results}); template routes whose names carry something the real name does not
 * ({@code scores.live.$(sport)}) cannot be listed, only asked for by name.</p>
 */
final class MetadataRouting {

    private final RouteTable routes;

    MetadataRouting(RouteTable routes) {
        this.routes = routes;
    }

    RequestFilterResult route(MetadataRequestData request, Exchange exchange) {
        if (request.topics() == null) {
            return exchange.forward(request, message -> listAll((MetadataResponseData) message));
        }
        List<String> asked = new ArrayList<>();
        Set<String> real = new LinkedHashSet<>();
        List<MetadataRequestData.MetadataRequestTopic> byId = new ArrayList<>();
        boolean routed = false;
        for (MetadataRequestData.MetadataRequestTopic topic : request.topics()) {
            if (topic.name() == null) {
                // Asked by id (v12+): ids are the broker's; a virtual topic's id is not, and the broker says so.
                byId.add(topic);
                continue;
            }
            asked.add(topic.name());
            Optional<View> view = routes.view(topic.name());
            routed |= view.isEmpty() || view.get().isVirtual();
            view.ifPresent(v -> real.add(v.topic()));
        }
        if (!routed) {
            return exchange.forward(request);
        }
        List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>(byId);
        real.forEach(name -> topics.add(new MetadataRequestData.MetadataRequestTopic().setName(name)));
        request.setTopics(topics).setAllowAutoTopicCreation(false);
        return exchange.forward(request, message -> answer((MetadataResponseData) message, asked));
    }

    /** The topics asked for by name, in the order asked, each as what its name stands for. */
    private void answer(MetadataResponseData response, List<String> asked) {
        List<MetadataResponseData.MetadataResponseTopic> answered = Renamed.takeAll(response.topics());
        Map<String, MetadataResponseData.MetadataResponseTopic> byName = answered.stream().filter(t -> t.name() != null)
                .collect(Collectors.toMap(MetadataResponseData.MetadataResponseTopic::name, Function.identity(), (a, b) -> a));
        answered.stream().filter(t -> t.name() == null).forEach(response.topics()::add);
        for (String name : asked) {
            Optional<View> view = routes.view(name);
            MetadataResponseData.MetadataResponseTopic real = view.map(v -> byName.get(v.topic())).orElse(null);
            if (real == null) {
                response.topics().add(unknown(name));
            } else if (view.get().isVirtual()) {
                response.topics().add(asVirtual(real, name));
            } else {
                response.topics().add(real.duplicate());
            }
        }
    }

    private void listAll(MetadataResponseData response) {
        List<MetadataResponseData.MetadataResponseTopic> topics = Renamed.takeAll(response.topics());
        for (MetadataResponseData.MetadataResponseTopic topic : topics) {
            if (topic.name() == null || !routes.hidden(topic.name())) {
                response.topics().add(topic);
            }
        }
        for (MetadataResponseData.MetadataResponseTopic topic : topics) {
            if (topic.name() != null && topic.errorCode() == Errors.NONE.code()) {
                for (View view : routes.listed(topic.name())) {
                    if (response.topics().find(view.name()) == null) {
                        response.topics().add(asVirtual(topic, view.name()));
                    }
                }
            }
        }
    }

    private static MetadataResponseData.MetadataResponseTopic asVirtual(MetadataResponseData.MetadataResponseTopic real, String name) {
        MetadataResponseData.MetadataResponseTopic virtual = real.duplicate().setName(name).setIsInternal(false);
        if (real.errorCode() == Errors.NONE.code() && !Uuid.ZERO_UUID.equals(real.topicId())) {
            virtual.setTopicId(Renamed.virtualTopicId(name));
        }
        if (real.errorCode() != Errors.NONE.code()) {
            virtual.setTopicId(Uuid.ZERO_UUID);
        }
        return virtual;
    }

    private static MetadataResponseData.MetadataResponseTopic unknown(String name) {
        return new MetadataResponseData.MetadataResponseTopic().setName(name).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                .setTopicId(Uuid.ZERO_UUID);
    }
}
