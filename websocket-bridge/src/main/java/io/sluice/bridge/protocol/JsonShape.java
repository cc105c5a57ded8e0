package io.sluice.bridge.protocol;

import java.util.ArrayDeque;
import java.util.Deque;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What bounds the cost of diffing a parsed JSON value: its number of nodes, its deepest nesting and its longest array.
 * Measured in one walk of the tree, linear in its size.
 */
record JsonShape(int nodes, int depth, int longestArray) {

    static JsonShape of(JsonNode root) {
        int nodes = 0;
        int depth = 0;
        int longestArray = 0;
        // Iterative: the tree may be as deep as the parser allows.
        Deque<JsonNode> pending = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        pending.push(root);
        depths.push(0);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            int level = depths.pop();
            nodes++;
            depth = Math.max(depth, level);
            if (node.isArray()) {
                longestArray = Math.max(longestArray, node.size());
            }
            if (node.isContainerNode()) {
                for (JsonNode child : node) {
                    pending.push(child);
                    depths.push(level + 1);
                }
            }
        }
        return new JsonShape(nodes, depth, longestArray);
    }

    /**
     * Each node of either value may become a patch operation (a path, an object in the patch, its bytes), which costs
     * about as much as this many node comparisons (measured: 1 to 3 us against about 5 ns).
     */
    static final int OPERATION_COST = 500;

    /**
     * An upper bound, up to a small constant factor, on the work of a JSON Patch diff between values of these shapes
     * (zjsonpatch without move and copy detection), in node comparisons: every node is compared once per ancestor (the
     * equality check before each descent); two arrays of lengths n and m are matched by a longest-common-subsequence
     * search of O((n + m) * d) element comparisons for d differences, each as deep as the elements, so each node also
     * costs up to 2 x the longest array per array it is in; and each node may cost one operation. Hence
     * (nodes of both) x ((depth + 1) x (2 x longest array + 1) + {@link #OPERATION_COST}).
     */
    static long diffWork(JsonShape a, JsonShape b) {
        long nodes = (long) a.nodes + b.nodes;
        long depth = Math.max(a.depth, b.depth) + 1L;
        long longest = Math.max(a.longestArray, b.longestArray);
        return nodes * (depth * (2 * longest + 1) + OPERATION_COST);
    }
}
