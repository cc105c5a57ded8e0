package io.sluice.filter.jwt.enforce;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;

import io.sluice.proxy.filter.FilterContext;

/** Topic names for the ids newer Produce, Fetch, OffsetCommit and OffsetFetch versions carry instead of names. */
final class TopicIds {

    private TopicIds() {
    }

    /** Names of the non-zero ids among {@code ids}; no round trip when there are none. */
    static CompletionStage<Map<Uuid, String>> names(FilterContext context, Collection<Uuid> ids) {
        List<Uuid> wanted = ids.stream().filter(id -> id != null && !Uuid.ZERO_UUID.equals(id)).distinct().toList();
        if (wanted.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        return context.topicNames(wanted);
    }

    /** The topic's name: the name field when the version has one, else what its id resolved to; null if unknown. */
    static String name(String name, Uuid id, Map<Uuid, String> names) {
        if (name != null && !name.isEmpty()) {
            return name;
        }
        return id == null ? null : names.get(id);
    }
}
