package io.sluice.filter.audit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

        private final List<Outcome> outcomes = new ArrayList<>();
        private final Set<List<Object>> seen = new HashSet<>();
        private int omitted;

        void add(String type, String name, short errorCode, String message) {
            if (errorCode == 0) {
                return;
            }
            Errors error = Errors.forCode(errorCode);
            String shownName = Secrets.text(name);
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
