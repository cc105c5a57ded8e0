package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.auth.NamePattern;

/**
 * Every route of one KeyRouting definition, and what a topic name a client uses stands for. A literal virtual
 * name wins over a template that also fits it ({@code scores.results} before {@code scores.$(match)}); two
 * literals with the same name, or two templates some name fits, are refused at start-up, so every name selects
 * at most one route.
 */
final class RouteTable {

    private static final int MAX_REMEMBERED_NAMES = 10_000;

    private final Map<String, Route> literals;
    private final List<Route> templates;
    private final List<Route> all;
    private final boolean hideRealTopics;
    private final Map<String, Resolution> resolutions = new ConcurrentHashMap<>();

    private RouteTable(Map<String, Route> literals, List<Route> templates, List<Route> all, boolean hideRealTopics) {
        this.literals = literals;
        this.templates = templates;
        this.all = all;
        this.hideRealTopics = hideRealTopics;
    }

    /** @throws IllegalArgumentException naming the field ({@code routes[2].key: ...}) of the first problem */
    static RouteTable of(KeyRouting.Config config) {
        if (config == null || config.routes() == null || config.routes().isEmpty()) {
            throw new IllegalArgumentException("routes: at least one route is required");
        }
        Map<String, Route> literals = new HashMap<>();
        Map<String, Integer> literalIndex = new HashMap<>();
        List<Route> templates = new ArrayList<>();
        List<Integer> templateIndex = new ArrayList<>();
        List<Route> all = new ArrayList<>();
        for (int i = 0; i < config.routes().size(); i++) {
            Route route = compile("routes[" + i + "]", config.routes().get(i));
            if (route.virtual().isLiteral()) {
                Integer earlier = literalIndex.putIfAbsent(route.virtual().toString(), i);
                if (earlier != null) {
                    throw new IllegalArgumentException("routes[" + i + "].virtual: '" + route.virtual() + "' is already routes[" + earlier + "].virtual");
                }
                literals.put(route.virtual().toString(), route);
            } else {
                for (int j = 0; j < templates.size(); j++) {
                    if (templates.get(j).virtual().overlaps(route.virtual())) {
                        throw new IllegalArgumentException("routes[" + i + "].virtual: '" + route.virtual() + "' overlaps routes[" + templateIndex.get(j)
                                + "].virtual '" + templates.get(j).virtual() + "' (some topic name fits both; make one more specific)");
                    }
                }
                templates.add(route);
                templateIndex.add(i);
            }
            all.add(route);
        }
        return new RouteTable(Map.copyOf(literals), List.copyOf(templates), List.copyOf(all), Boolean.TRUE.equals(config.hideRealTopics()));
    }

    private static Route compile(String field, KeyRouting.RouteConfig config) {
        if (config == null) {
            throw new IllegalArgumentException(field + ": must not be empty");
        }
        NameTemplate virtual = parse(field + ".virtual", config.virtual());
        NameTemplate topic = parse(field + ".topic", config.topic());
        for (String name : topic.placeholders()) {
            if (!virtual.placeholders().contains(name)) {
                throw new IllegalArgumentException(field + ".topic: uses $(" + name + "), which " + field + ".virtual '" + virtual + "' does not define");
            }
        }
        String key = config.key();
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException(field + ".key: is required (a key pattern: live/football, live/*, $(match), or * for every key)");
        }
        for (String name : NameTemplate.placeholdersIn(key)) {
            if (!virtual.placeholders().contains(name)) {
                throw new IllegalArgumentException(field + ".key: uses $(" + name + "), which " + field + ".virtual '" + virtual + "' does not define");
            }
        }
        try {
            Map<String, String> sample = new HashMap<>();
            virtual.placeholders().forEach(n -> sample.put(n, "x"));
            NamePattern.compile(NameTemplate.expand(key, sample));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ".key: " + e.getMessage());
        }
        return new Route(virtual, topic, key);
    }

    private static NameTemplate parse(String field, String template) {
        try {
            return NameTemplate.parse(template);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage());
        }
    }

    /** The virtual topic {@code name} stands for, if any. */
    Optional<View> virtual(String name) {
        return name == null ? Optional.empty() : resolved(name).virtual();
    }

    /** What a name resolves to; kept, as names recur in every request of a client. */
    private record Resolution(Optional<View> virtual, boolean behindARoute) {
    }

    private Resolution resolved(String name) {
        Resolution known = resolutions.get(name);
        if (known != null) {
            return known;
        }
        Resolution resolution = new Resolution(resolve(name), all.stream().anyMatch(r -> r.isBehind(name)));
        // Names come from clients: stop remembering new ones rather than grow without bound.
        if (resolutions.size() < MAX_REMEMBERED_NAMES) {
            resolutions.put(name, resolution);
        }
        return resolution;
    }

    private Optional<View> resolve(String name) {
        Route literal = literals.get(name);
        if (literal != null) {
            return literal.resolve(name);
        }
        for (Route route : templates) {
            Optional<View> view = route.resolve(name);
            if (view.isPresent()) {
                return view;
            }
        }
        return Optional.empty();
    }

    /** What a client's topic name stands for: a virtual topic, the real topic of that name, or nothing (hidden). */
    Optional<View> view(String name) {
        Optional<View> virtual = virtual(name);
        if (virtual.isPresent()) {
            return virtual;
        }
        return hidden(name) ? Optional.empty() : Optional.of(View.direct(name));
    }

    /** A real topic behind some route, kept from clients because {@code hideRealTopics} is set. */
    boolean hidden(String real) {
        return hideRealTopics && virtual(real).isEmpty() && isBehindARoute(real);
    }

    /** Whether some route reads or writes {@code real}: clients using it directly share it with virtual topics. */
    boolean isBehindARoute(String real) {
        return real != null && resolved(real).behindARoute();
    }

    /** Whether a request naming {@code name} needs routing: a virtual topic, or a real topic behind a route (hidden or shared). */
    boolean concerns(String name) {
        return virtual(name).isPresent() || isBehindARoute(name);
    }

    /** The virtual topics to list for real topic {@code real} when a client asks for all topics. */
    List<View> listed(String real) {
        List<View> views = new ArrayList<>();
        for (Route route : all) {
            route.listedName(real).flatMap(this::virtual).filter(v -> v.topic().equals(real) && !v.name().equals(real)).ifPresent(views::add);
        }
        return views;
    }
}
