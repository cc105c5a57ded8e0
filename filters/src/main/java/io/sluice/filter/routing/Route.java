package io.sluice.filter.routing;

import java.util.Map;
import java.util.Optional;

import io.sluice.auth.NamePattern;

/**
 * One configured route: virtual topic names (a {@link NameTemplate}) onto a real topic and a key pattern.
 * The placeholders of the virtual name fill those of the real topic and of the key:
 * {@code scores.live.$(sport)} → topic {@code scores}, keys {@code live/$(sport)}. Placeholder values are
 * letters, digits, '_' and '-', none of which is special in a {@link NamePattern}, so they are always literal
 * in the key pattern.
 */
final class Route {

    private final NameTemplate virtual;
    private final NameTemplate topic;
    private final String key;

    Route(NameTemplate virtual, NameTemplate topic, String key) {
        this.virtual = virtual;
        this.topic = topic;
        this.key = key;
    }

    NameTemplate virtual() {
        return virtual;
    }

    NameTemplate topic() {
        return topic;
    }

    String key() {
        return key;
    }

    /** The view this route makes of {@code name}, if the name is one of its virtual topics. */
    Optional<View> resolve(String name) {
        return virtual.match(name).map(values -> new View(name, topic.expand(values), NamePattern.compile(NameTemplate.expand(key, values))));
    }

    /**
     * The virtual topic this route lists for real topic {@code real}, for Metadata requests that list all topics.
     * Only routes whose virtual name can be derived from the real one are listed: {@code scores.results} for
     * {@code scores}, {@code $(t).live} for any real {@code t}; never {@code scores.live.$(sport)}, whose sports
     * are not written down anywhere.
     */
    Optional<String> listedName(String real) {
        if (!topic.placeholders().containsAll(virtual.placeholders())) {
            return Optional.empty();
        }
        return topic.match(real).map(virtual::expand);
    }

    /** Whether {@code real} is the real topic behind some virtual topic of this route. */
    boolean isBehind(String real) {
        return topic.match(real).isPresent();
    }
}
