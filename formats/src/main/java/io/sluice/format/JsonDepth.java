package io.sluice.format;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

import com.fasterxml.jackson.databind.JsonNode;

/** How deep a JSON tree nests, measured without recursion so that a hostile tree cannot overflow the stack here. */
final class JsonDepth {

    private JsonDepth() {
    }

    /** Throws when {@code value} nests objects/arrays deeper than {@code max}. */
    static void check(JsonNode value, int max) throws EncodeException {
        Deque<Iterator<JsonNode>> stack = new ArrayDeque<>();
        if (value != null && value.isContainerNode()) {
            stack.push(value.elements());
        }
        while (!stack.isEmpty()) {
            if (stack.size() > max) {
                throw new EncodeException("the value nests deeper than " + max + " levels");
            }
            Iterator<JsonNode> it = stack.peek();
            if (!it.hasNext()) {
                stack.pop();
                continue;
            }
            JsonNode child = it.next();
            if (child.isContainerNode()) {
                stack.push(child.elements());
            }
        }
    }
}
