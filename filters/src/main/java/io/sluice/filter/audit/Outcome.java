package io.sluice.filter.audit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * An error a response gives for one resource: its type and name (as in {@link Resource}), the error and the message
 * that came with it, if any ({@link Secrets#message}).
 */
record Outcome(String type, String name, Errors error, String message) {

    /**
     * The errors of one response, in the order met, each (type, name, error) once, at most {@value #MAX} of them; the
     * rest only counted. Error code zero is no error and is not kept.
     */
    static final class Collector {

        static final int MAX = 100;

        // Made at the first error: most responses have none, and this runs for every response the audit sees.
        private List<Outcome> outcomes = List.of();
        private Set<List<Object>> seen;
        /** Topics with an error that the response names by id only, by the name they have until {@link #rename}. */
        private Map<String, Uuid> unnamed = Map.of();
        private int omitted;

        /** A topic's error, the topic by name or, where the message carries only its id, by id until {@link #rename}. */
        void addTopic(String name, Uuid id, short errorCode, String message) {
            if (errorCode == 0) {
                return;
            }
            String shown = Resource.topicName(name, id);
            if ((name == null || name.isEmpty()) && !shown.isEmpty()) {
                if (unnamed.isEmpty()) {
                    unnamed = new HashMap<>();
                }
                unnamed.put(shown, id);
            }
            add(Resource.TOPIC, shown, errorCode, message);
        }

        /** The ids of topics with errors that the response did not name. */
        Collection<Uuid> unnamedTopicIds() {
            return unnamed.values();
        }

        /** Names the topics known by id only, where {@code names} knows them; the others keep their id. */
        void rename(Map<Uuid, String> names) {
            if (unnamed.isEmpty()) {
                return;
            }
            outcomes.replaceAll(o -> {
                Uuid id = o.type().equals(Resource.TOPIC) ? unnamed.get(o.name()) : null;
                String name = id == null ? null : names.get(id);
                return name == null ? o : new Outcome(o.type(), Secrets.text(name), o.error(), o.message());
            });
        }

        void add(String type, String name, short errorCode, String message) {
            if (errorCode == 0) {
                return;
            }
            Errors error = Errors.forCode(errorCode);
            String shownName = Secrets.text(name);
            if (seen == null) {
                seen = new HashSet<>();
                outcomes = new ArrayList<>();
            }
            if (!seen.add(List.of(type, String.valueOf(shownName), error))) {
                return;
            }
            if (outcomes.size() >= MAX) {
                omitted++;
                return;
            }
            outcomes.add(new Outcome(type, shownName, error, Secrets.message(message)));
        }

        List<Outcome> outcomes() {
            return outcomes;
        }

        int omitted() {
            return omitted;
        }
    }
}
