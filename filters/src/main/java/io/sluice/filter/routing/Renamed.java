package io.sluice.filter.routing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.ImplicitLinkedHashMultiCollection;

/**
 * Helpers for messages whose topics change names. Kafka's generated collections index their elements by name,
 * so an element must leave its collection before its name changes and join again afterwards.
 */
final class Renamed {

    private Renamed() {
    }

    /** Empties {@code collection} and returns what it held, in order, free to be renamed and added again. */
    static <E extends ImplicitLinkedHashMultiCollection.Element> List<E> takeAll(ImplicitLinkedHashMultiCollection<E> collection) {
        List<E> elements = new ArrayList<>(collection);
        for (E element : elements) {
            collection.remove(element);
        }
        return elements;
    }

    /**
     * The topic id a virtual topic shows in Metadata: derived from its name (UUID v3), so it is the same on every
     * proxy and across restarts, and never the real topic's id, which would tell clients two names are one topic.
     */
    static Uuid virtualTopicId(String virtualName) {
        UUID uuid = UUID.nameUUIDFromBytes(("sluice.virtual-topic/" + virtualName).getBytes(StandardCharsets.UTF_8));
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }
}
