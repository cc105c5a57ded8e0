package io.sluice.filter.jwt.enforce;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.FilterContext;

/**
 * StreamsGroupHeartbeat (KIP-1071). Its topology names the application's source topics and its internal
 * (changelog and repartition) topics, and the broker creates the internal topics that are missing, checking only
 * its own principal's rights: the proxy's. So a principal that may use the group needs {@code read} on every
 * source topic, {@code read} and {@code write} on every internal topic, and, for internal topics that do not
 * exist yet, what CreateTopics needs: admin. Existence is asked of the broker just before the heartbeat is
 * forwarded; a topic deleted in between would be created again, which only an admin can cause. Source topic
 * regexes are resolved by the broker against all topics and are refused, as KIP-848's are.
 */
final class StreamsRules {

    /** Metadata v12: names and ids, and {@code allowAutoTopicCreation} to switch creation off. */
    private static final short METADATA_VERSION = 12;

    private StreamsRules() {
    }

    static CompletionStage<Decision> heartbeat(StreamsGroupHeartbeatRequestData request, Access access, FilterContext context) {
        if (!access.group(request.groupId())) {
            return done(Decision.deny(new GroupAuthorizationException("not permitted to use group " + request.groupId())));
        }
        Set<String> internal = new LinkedHashSet<>();
        if (request.topology() != null) {
            for (StreamsGroupHeartbeatRequestData.Subtopology s : request.topology().subtopologies()) {
                if (s.sourceTopicRegex() != null && !s.sourceTopicRegex().isEmpty()) {
                    return done(deny("source topic regexes are resolved by the broker against every topic and are not permitted through JwtAuth"));
                }
                for (String topic : s.sourceTopics()) {
                    if (!access.topic(topic).read().any()) {
                        return done(deny("not permitted to read source topic " + topic));
                    }
                }
                s.stateChangelogTopics().forEach(t -> internal.add(t.name()));
                s.repartitionSourceTopics().forEach(t -> internal.add(t.name()));
                internal.addAll(s.repartitionSinkTopics());
            }
        }
        for (String topic : internal) {
            if (!access.topic(topic).read().any() || !access.topic(topic).write().any()) {
                return done(deny("not permitted to read and write internal topic " + topic));
            }
        }
        Decision forward = Decision.forward(response -> {
            hideEndpointTopics((StreamsGroupHeartbeatResponseData) response, access);
            return CompletableFuture.completedFuture(null);
        });
        if (internal.isEmpty()) {
            return done(forward);
        }
        return missing(internal, context).thenApply(missing -> missing.isEmpty() ? forward
                : deny("creating internal topics " + missing + " needs the permission CreateTopics needs (admin)"));
    }

    /** The topics among {@code names} the broker does not have. */
    private static CompletionStage<List<String>> missing(Set<String> names, FilterContext context) {
        MetadataRequestData metadata = new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(names.stream().map(n -> new MetadataRequestData.MetadataRequestTopic().setName(n)).toList());
        return context.<MetadataResponseData> sendRequest(new RequestHeaderData().setRequestApiVersion(METADATA_VERSION), metadata)
                .thenApply(response -> {
                    List<String> missing = new ArrayList<>();
                    for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
                        if (topic.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
                            missing.add(topic.name());
                        } else if (topic.errorCode() != Errors.NONE.code()) {
                            // Anything else (e.g. still being created, or an authorization failure upstream) is not a
                            // proof of existence: refuse rather than let the broker decide to create.
                            missing.add(topic.name());
                        }
                    }
                    return missing;
                });
    }

    /**
     * The heartbeat's response maps every member's endpoint to the partitions it serves, topics of the whole
     * group's topology: members of other principals may use topics this one may not see.
     */
    private static void hideEndpointTopics(StreamsGroupHeartbeatResponseData response, Access access) {
        if (response.partitionsByUserEndpoint() == null) {
            return;
        }
        for (StreamsGroupHeartbeatResponseData.EndpointToPartitions endpoint : response.partitionsByUserEndpoint()) {
            endpoint.activePartitions().removeIf(tp -> !access.describe(tp.topic()));
            endpoint.standbyPartitions().removeIf(tp -> !access.describe(tp.topic()));
        }
    }

    private static Decision deny(String message) {
        return Decision.deny(new TopicAuthorizationException(message));
    }

    private static CompletionStage<Decision> done(Decision decision) {
        return CompletableFuture.completedFuture(decision);
    }
}
