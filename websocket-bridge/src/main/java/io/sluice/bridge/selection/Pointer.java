package io.sluice.bridge.selection;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An RFC 6901 JSON Pointer, split into unescaped segments once at parse time so that resolving it against a record
 * costs one map or array lookup per segment and allocates nothing. A segment that is an array index ({@code 0} or
 * digits without a leading zero) also names an object member of that text: which one applies depends on the node met.
 * {@code -} (the element after the last) and indexes out of range resolve to nothing.
 */
final class Pointer implements Comparable<Pointer> {

    private final String text;
    private final String[] segments;
    /** Per segment: its array index, or -1 when it cannot be one. */
    private final int[] indexes;

    private Pointer(String text, String[] segments) {
        this.text = text;
        this.segments = segments;
        this.indexes = new int[segments.length];
        for (int i = 0; i < segments.length; i++) {
            indexes[i] = index(segments[i]);
        }
    }

    /** Parses {@code node} as a pointer, checking the length and segment limits before splitting it. */
    static Pointer parse(JsonNode node, String path, FilterLimits limits) throws FilterException {
        if (node == null || !node.isTextual()) {
            throw FilterException.invalid(path, "not a JSON Pointer (a string such as \"/value/price\")");
        }
        String text = node.textValue();
        if (text.length() > limits.maxPointerChars()) {
            throw FilterException.tooLarge(path, "JSON Pointer longer than " + limits.maxPointerChars() + " characters");
        }
        if (!text.isEmpty() && text.charAt(0) != '/') {
            throw FilterException.invalid(path, "not a JSON Pointer: it must be empty or start with '/': '"
                    + FilterException.excerpt(text, 64) + "'");
        }
        int count = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '/') {
                count++;
            }
        }
        if (count > limits.maxPointerSegments()) {
            throw FilterException.tooLarge(path, "JSON Pointer with more than " + limits.maxPointerSegments()
                    + " segments");
        }
        List<String> segments = new ArrayList<>(count);
        int start = 1;
        while (start <= text.length() && !text.isEmpty()) {
            int end = text.indexOf('/', start);
            if (end < 0) {
                end = text.length();
            }
            segments.add(unescape(text.substring(start, end), path, text));
            start = end + 1;
        }
        return new Pointer(text, segments.toArray(new String[0]));
    }

    private static String unescape(String segment, String path, String text) throws FilterException {
        if (segment.indexOf('~') < 0) {
            return segment;
        }
        StringBuilder out = new StringBuilder(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '~') {
                out.append(c);
                continue;
            }
            char next = i + 1 < segment.length() ? segment.charAt(i + 1) : 0;
            if (next == '0') {
                out.append('~');
            }
            else if (next == '1') {
                out.append('/');
            }
            else {
                throw FilterException.invalid(path, "not a JSON Pointer: '~' must be followed by 0 or 1: '"
                        + FilterException.excerpt(text, 64) + "'");
            }
            i++;
        }
        return out.toString();
    }

    private static int index(String segment) {
        int length = segment.length();
        if (length == 0 || length > 9 || (length > 1 && segment.charAt(0) == '0')) {
            return -1; // 9 digits stay below Integer.MAX_VALUE; no JSON array here is that long anyway
        }
        int value = 0;
        for (int i = 0; i < length; i++) {
            char c = segment.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    int size() {
        return segments.length;
    }

    String segment(int i) {
        return segments[i];
    }

    /** The node at this pointer's segments from {@code from} on, starting at {@code node}; null when there is none. */
    JsonNode resolve(JsonNode node, int from) {
        for (int i = from; i < segments.length && node != null; i++) {
            if (node.isObject()) {
                node = node.get(segments[i]);
            }
            else if (node.isArray()) {
                node = indexes[i] < 0 ? null : node.get(indexes[i]);
            }
            else {
                return null;
            }
        }
        return node;
    }

    /** True when every segment of this pointer starts {@code other}'s (this one selects a subtree containing it). */
    boolean covers(Pointer other) {
        if (other.segments.length < segments.length) {
            return false;
        }
        for (int i = 0; i < segments.length; i++) {
            if (!segments[i].equals(other.segments[i])) {
                return false;
            }
        }
        return true;
    }

    /** Segment by segment, shorter first on a tie: parents sort before their children. */
    @Override
    public int compareTo(Pointer other) {
        int common = Math.min(segments.length, other.segments.length);
        for (int i = 0; i < common; i++) {
            int c = segments[i].compareTo(other.segments[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(segments.length, other.segments.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Pointer p && Arrays.equals(segments, p.segments);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(segments);
    }

    /** The pointer as written; RFC 6901 has exactly one spelling per pointer, so this is also its canonical form. */
    @Override
    public String toString() {
        return text;
    }
}
