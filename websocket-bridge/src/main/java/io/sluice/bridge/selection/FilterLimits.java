package io.sluice.bridge.selection;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Bounds on a subscription filter and field list, which come from clients (and from tokens) and are evaluated by the
 * node's one Kafka reader for every record of their group. Each limit is checked before anything proportional to the
 * input is built, so an oversized filter costs a glance, not a copy. Evaluation of one record costs at most about
 * {@code maxNodes x (maxPointerSegments + maxInList)} steps, plus comparing object/array literals, whose total size
 * {@code maxFilterChars} bounds. The request frame itself is bounded earlier by {@code server.maxInboundMessageBytes}
 * (1 MiB by default) and its JSON nesting by the protocol parser (64 levels), so these limits meet an already parsed
 * tree of bounded size; they still hold for trees built elsewhere (token claims), however deep.
 *
 * @param maxNodes           operators in one filter ({@code eq}, {@code all}, ...), each counted once
 * @param maxDepth           nesting of operators ({@code all}/{@code any}/{@code not} inside each other; a lone
 *                           comparison has depth 1), and separately the nesting of an object/array literal
 * @param maxInList          literals in one {@code in} list
 * @param maxStringChars     characters in one string literal (and in one object key of a literal)
 * @param maxPointerChars    characters in one JSON Pointer as written
 * @param maxPointerSegments segments ({@code /}-separated parts) in one JSON Pointer
 * @param maxFields          pointers in one field list ({@code fields})
 * @param maxFilterChars     the filter as compact JSON, in characters (an escaped character counts once); also
 *                           bounds a field list as a whole
 * @param maxGroupsPerEndpoint distinct (filter, field list) pairs among the subscriptions to one endpoint or prefix on
 *                           a node: the node selects and encodes once per pair, so this bounds the reader's work per
 *                           record of that endpoint however many clients subscribe ({@code too_many_groups} beyond)
 */
public record FilterLimits(int maxNodes, int maxDepth, int maxInList, int maxStringChars, int maxPointerChars,
                           int maxPointerSegments, int maxFields, int maxFilterChars, int maxGroupsPerEndpoint) {

    public static final int DEFAULT_MAX_NODES = 64;
    public static final int DEFAULT_MAX_DEPTH = 8;
    public static final int DEFAULT_MAX_IN_LIST = 256;
    public static final int DEFAULT_MAX_STRING_CHARS = 1024;
    public static final int DEFAULT_MAX_POINTER_CHARS = 256;
    public static final int DEFAULT_MAX_POINTER_SEGMENTS = 16;
    public static final int DEFAULT_MAX_FIELDS = 64;
    public static final int DEFAULT_MAX_FILTER_CHARS = 4096;
    public static final int DEFAULT_MAX_GROUPS_PER_ENDPOINT = 64;

    /** The limits of filters and field lists alone (a parse does not look at groups). */
    public FilterLimits(int maxNodes, int maxDepth, int maxInList, int maxStringChars, int maxPointerChars,
                        int maxPointerSegments, int maxFields, int maxFilterChars) {
        this(maxNodes, maxDepth, maxInList, maxStringChars, maxPointerChars, maxPointerSegments, maxFields, maxFilterChars,
                DEFAULT_MAX_GROUPS_PER_ENDPOINT);
    }

    public static FilterLimits defaults() {
        return new FilterLimits(DEFAULT_MAX_NODES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_IN_LIST, DEFAULT_MAX_STRING_CHARS,
                DEFAULT_MAX_POINTER_CHARS, DEFAULT_MAX_POINTER_SEGMENTS, DEFAULT_MAX_FIELDS, DEFAULT_MAX_FILTER_CHARS);
    }

    @JsonCreator
    static FilterLimits fromYaml(@JsonProperty("maxNodes") Integer maxNodes,
                                 @JsonProperty("maxDepth") Integer maxDepth,
                                 @JsonProperty("maxInList") Integer maxInList,
                                 @JsonProperty("maxStringChars") Integer maxStringChars,
                                 @JsonProperty("maxPointerChars") Integer maxPointerChars,
                                 @JsonProperty("maxPointerSegments") Integer maxPointerSegments,
                                 @JsonProperty("maxFields") Integer maxFields,
                                 @JsonProperty("maxFilterChars") Integer maxFilterChars,
                                 @JsonProperty("maxGroupsPerEndpoint") Integer maxGroupsPerEndpoint) {
        return new FilterLimits(or(maxNodes, DEFAULT_MAX_NODES), or(maxDepth, DEFAULT_MAX_DEPTH),
                or(maxInList, DEFAULT_MAX_IN_LIST), or(maxStringChars, DEFAULT_MAX_STRING_CHARS),
                or(maxPointerChars, DEFAULT_MAX_POINTER_CHARS), or(maxPointerSegments, DEFAULT_MAX_POINTER_SEGMENTS),
                or(maxFields, DEFAULT_MAX_FIELDS), or(maxFilterChars, DEFAULT_MAX_FILTER_CHARS),
                or(maxGroupsPerEndpoint, DEFAULT_MAX_GROUPS_PER_ENDPOINT));
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }

    /** Problems, each naming its field under {@code filters.}; every limit must be at least 1. */
    public void validate(List<String> problems) {
        positive(problems, "maxNodes", maxNodes);
        positive(problems, "maxDepth", maxDepth);
        positive(problems, "maxInList", maxInList);
        positive(problems, "maxStringChars", maxStringChars);
        positive(problems, "maxPointerChars", maxPointerChars);
        positive(problems, "maxPointerSegments", maxPointerSegments);
        positive(problems, "maxFields", maxFields);
        positive(problems, "maxFilterChars", maxFilterChars);
        positive(problems, "maxGroupsPerEndpoint", maxGroupsPerEndpoint);
    }

    private static void positive(List<String> problems, String field, int value) {
        if (value < 1) {
            problems.add("filters." + field + ": must be 1 or more");
        }
    }
}
