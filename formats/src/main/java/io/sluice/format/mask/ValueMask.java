package io.sluice.format.mask;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The masks one reader gets on one topic: the rule's field masks less those the reader may see whole. Immutable and
 * thread-safe; two are equal when they apply the same masks of the same rule ({@link #key()}), which is how the
 * bridge lets readers with the same view share one masked copy of a record.
 */
public final class ValueMask {

    private final List<FieldMask> masks;
    private final MaskFailure onFailure;
    private final String key;

    ValueMask(int rule, List<FieldMask> masks, List<Integer> indexes, MaskFailure onFailure) {
        this.masks = List.copyOf(masks);
        this.onFailure = onFailure;
        StringBuilder key = new StringBuilder("rule ").append(rule).append(':');
        indexes.forEach(i -> key.append(' ').append(i));
        this.key = key.toString();
    }

    /**
     * The value with the masks applied: a copy, {@code value} itself is not changed. A value that is not a JSON object
     * or array cannot hold a field, so it is the record's failure: the rule names the topic, and a record that is
     * text, binary or a bare scalar might hold anything.
     *
     * @throws UnmaskableException naming the field and why
     */
    public JsonNode apply(JsonNode value) throws UnmaskableException {
        if (value == null || !value.isContainerNode()) {
            throw new UnmaskableException("/: the value is not a JSON object or array, so its fields cannot be masked");
        }
        JsonNode copy = value.deepCopy();
        for (FieldMask mask : masks) {
            mask.apply(copy);
        }
        return copy;
    }

    public MaskFailure onFailure() {
        return onFailure;
    }

    /** The masked fields' JSON Pointers, in rule order (for logs and docs: never values). */
    public List<String> paths() {
        return masks.stream().map(FieldMask::path).toList();
    }

    /** Which rule and which of its fields: equal keys mask equally. */
    public String key() {
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ValueMask v && v.key.equals(key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "ValueMask[" + key + " " + paths() + "]";
    }
}
