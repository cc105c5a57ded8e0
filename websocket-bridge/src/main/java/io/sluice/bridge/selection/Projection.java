package io.sluice.bridge.selection;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A field list ({@code "fields"}): JSON Pointers rooted at the decoded value, and the object that holds just those
 * paths. The structure is rebuilt from the pointers' segments, always as objects: {@code /items/2/price} projects to
 * {@code {"items": {"2": {"price": ...}}}}, so every listed pointer resolves on the projection exactly as on the value
 * (an array rebuilt as an array would need its other elements, or shift indexes). A path the value lacks is absent,
 * never null. Immutable and thread-safe; equal when their {@link #canonical()} texts are.
 */
public final class Projection {

    private final List<Pointer> pointers;
    private final String canonical;

    private Projection(List<Pointer> pointers) {
        this.pointers = pointers;
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < pointers.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            JsonValues.appendString(pointers.get(i).toString(), out);
        }
        this.canonical = out.append(']').toString();
    }

    /** Parses a field list sent as {@code "fields"}: a non-empty list of JSON Pointers, none of them the root "". */
    public static Projection parse(JsonNode node, FilterLimits limits) throws FilterException {
        String path = "fields";
        if (node == null || !node.isArray()) {
            throw FilterException.invalid(path, "expected a list of JSON Pointers, such as [\"/price\", \"/quote/bid\"]");
        }
        if (node.size() > limits.maxFields()) {
            throw FilterException.tooLarge(path, "more than " + limits.maxFields() + " fields");
        }
        if (node.isEmpty()) {
            throw FilterException.invalid(path, "empty: leave fields out to receive the whole value");
        }
        SizeCheck.atMost(node, limits.maxFilterChars(), path);
        List<Pointer> pointers = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            Pointer pointer = Pointer.parse(node.get(i), path + "[" + i + "]", limits);
            if (pointer.size() == 0) {
                throw FilterException.invalid(path + "[" + i + "]", "\"\" is the whole value: leave fields out instead");
            }
            pointers.add(pointer);
        }
        return new Projection(canonical(pointers));
    }

    /** Sorted segment by segment, without duplicates and without pointers inside another listed one. */
    private static List<Pointer> canonical(List<Pointer> pointers) {
        List<Pointer> sorted = new ArrayList<>(pointers);
        sorted.sort(null);
        List<Pointer> kept = new ArrayList<>(sorted.size());
        for (Pointer pointer : sorted) {
            // Parents sort right before their descendants, so the last one kept is the only candidate cover.
            if (kept.isEmpty() || !kept.get(kept.size() - 1).covers(pointer)) {
                kept.add(pointer);
            }
        }
        return List.copyOf(kept);
    }

    /**
     * The projection of {@code value}: an object (empty when no listed path exists, also for a value that is not an
     * object or array). It shares the selected subtrees with {@code value}: neither may be modified afterwards.
     * Costs one lookup per pointer segment.
     */
    public JsonNode project(JsonNode value) {
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        for (Pointer pointer : pointers) {
            JsonNode selected = pointer.resolve(value, 0);
            if (selected == null) {
                continue;
            }
            ObjectNode parent = result;
            for (int i = 0; i < pointer.size() - 1; i++) {
                JsonNode child = parent.get(pointer.segment(i));
                parent = child instanceof ObjectNode object ? object : parent.putObject(pointer.segment(i));
            }
            parent.set(pointer.segment(pointer.size() - 1), selected);
        }
        return result;
    }

    /** The pointers as a compact JSON list, sorted by segments, duplicates and covered pointers removed. */
    public String canonical() {
        return canonical;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Projection p && p.canonical.equals(canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }

    @Override
    public String toString() {
        return canonical;
    }
}
