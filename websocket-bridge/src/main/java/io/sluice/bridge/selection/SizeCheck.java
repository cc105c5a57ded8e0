package io.sluice.bridge.selection;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Measures a JSON tree as compact JSON text without writing it and without recursion, giving up as soon as it is
 * larger than allowed. Runs before anything else looks at a filter, so that a tree of any depth or width (a token
 * claim is parsed by other code, with other limits) costs at most about {@code maxChars} steps and never the stack.
 */
final class SizeCheck {

    private SizeCheck() {
    }

    static void atMost(JsonNode root, int maxChars, String path) throws FilterException {
        long remaining = maxChars;
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            int size = node.size();
            // Containers: brackets and commas now, and every member takes at least one more character, so a list
            // too long for what is left is refused by its size alone, before one member is looked at.
            long cost = node.isContainerNode() ? 2L + Math.max(0, size - 1) : scalarChars(node);
            if (cost + (node.isContainerNode() ? size : 0) > remaining) {
                throw FilterException.tooLarge(path, "larger than " + maxChars + " characters as compact JSON");
            }
            remaining -= cost;
            if (node.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> member = it.next();
                    remaining -= member.getKey().length() + 3L; // "name":
                    pending.push(member.getValue());
                }
            }
            else if (node.isArray()) {
                for (JsonNode element : node) {
                    pending.push(element);
                }
            }
            if (remaining < 0) {
                throw FilterException.tooLarge(path, "larger than " + maxChars + " characters as compact JSON");
            }
        }
    }

    private static long scalarChars(JsonNode node) {
        if (node.isTextual()) {
            return node.textValue().length() + 2L;
        }
        if (node.isBoolean()) {
            return node.booleanValue() ? 4 : 5;
        }
        if (node.isNumber()) {
            return node.asText().length();
        }
        return 4; // null; other node kinds are refused by the parser
    }
}
