package io.sluice.bridge.selection;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads the JSON filter language into an {@link Expr}, checking each limit before building anything proportional to
 * what it checks: an {@code in} list's length before its sets, an operand list's length before its list, a pointer's
 * length before splitting it. Recursion follows operator nesting only, which {@link FilterLimits#maxDepth()} bounds
 * before each step down; literals are checked without recursion.
 */
final class FilterParser {

    private final FilterLimits limits;
    private int nodes;

    private FilterParser(FilterLimits limits) {
        this.limits = limits;
    }

    static Expr parse(JsonNode node, FilterLimits limits, String path) throws FilterException {
        if (node == null || !node.isObject()) {
            throw FilterException.invalid(path, "a filter is a JSON object with one operator, such as {\"eq\": [\"/value/x\", 1]}");
        }
        SizeCheck.atMost(node, limits.maxFilterChars(), path);
        return new FilterParser(limits).expr(node, path, 1);
    }

    private Expr expr(JsonNode node, String path, int depth) throws FilterException {
        if (depth > limits.maxDepth()) {
            throw FilterException.tooLarge(path, "operators nested deeper than " + limits.maxDepth());
        }
        if (++nodes > limits.maxNodes()) {
            throw FilterException.tooLarge(path, "more than " + limits.maxNodes() + " operators");
        }
        if (!node.isObject() || node.size() != 1) {
            throw FilterException.invalid(path, node.isObject()
                    ? "an operator object has exactly one member, such as {\"eq\": [\"/value/x\", 1]}"
                    : "expected an operator object, such as {\"eq\": [\"/value/x\", 1]}");
        }
        Map.Entry<String, JsonNode> member = node.fields().next();
        String op = member.getKey();
        JsonNode operand = member.getValue();
        String at = path + "." + FilterException.excerpt(op, 32);
        return switch (op) {
            case "eq" -> compare(Expr.Comparison.EQ, operand, at);
            case "ne" -> compare(Expr.Comparison.NE, operand, at);
            case "lt" -> compare(Expr.Comparison.LT, operand, at);
            case "le" -> compare(Expr.Comparison.LE, operand, at);
            case "gt" -> compare(Expr.Comparison.GT, operand, at);
            case "ge" -> compare(Expr.Comparison.GE, operand, at);
            case "in" -> in(operand, at);
            case "prefix" -> prefix(operand, at);
            case "exists" -> new Expr.Exists(pointer(operand, at));
            case "all", "any" -> junction(op.equals("all"), operand, at, depth);
            case "not" -> new Expr.Not(expr(operand, at, depth + 1));
            default -> throw FilterException.invalid(path, "unknown operator '" + FilterException.excerpt(op, 32)
                    + "' (eq, ne, lt, le, gt, ge, in, prefix, exists, all, any, not)");
        };
    }

    private Expr compare(Expr.Comparison op, JsonNode operand, String at) throws FilterException {
        pair(operand, at, "[POINTER, LITERAL]");
        Pointer pointer = pointer(operand.get(0), at + "[0]");
        JsonNode literal = operand.get(1);
        literal(literal, at + "[1]");
        if (op.ordering() && !literal.isNumber() && !literal.isTextual()) {
            throw FilterException.invalid(at + "[1]", op.name + " compares with a number or a string");
        }
        return new Expr.Compare(op, pointer, literal, JsonValues.numberKey(literal));
    }

    private Expr in(JsonNode operand, String at) throws FilterException {
        pair(operand, at, "[POINTER, [LITERAL, ...]]");
        Pointer pointer = pointer(operand.get(0), at + "[0]");
        JsonNode list = operand.get(1);
        if (!list.isArray()) {
            throw FilterException.invalid(at + "[1]", "expected a list of literals");
        }
        if (list.size() > limits.maxInList()) {
            throw FilterException.tooLarge(at + "[1]", "more than " + limits.maxInList() + " literals");
        }
        List<JsonNode> literals = new ArrayList<>(list.size());
        Set<String> strings = new HashSet<>();
        Set<Object> numbers = new HashSet<>();
        List<JsonNode> containers = new ArrayList<>();
        boolean hasTrue = false;
        boolean hasFalse = false;
        boolean hasNull = false;
        for (int i = 0; i < list.size(); i++) {
            JsonNode literal = list.get(i);
            literal(literal, at + "[1][" + i + "]");
            literals.add(literal);
            if (literal.isTextual()) {
                strings.add(literal.textValue());
            }
            else if (literal.isNumber()) {
                numbers.add(JsonValues.numberKey(literal));
            }
            else if (literal.isBoolean()) {
                hasTrue |= literal.booleanValue();
                hasFalse |= !literal.booleanValue();
            }
            else if (literal.isNull()) {
                hasNull = true;
            }
            else {
                containers.add(literal);
            }
        }
        return new Expr.In(pointer, List.copyOf(literals), Set.copyOf(strings), Set.copyOf(numbers), hasTrue, hasFalse,
                hasNull, List.copyOf(containers));
    }

    private Expr prefix(JsonNode operand, String at) throws FilterException {
        pair(operand, at, "[POINTER, \"text\"]");
        Pointer pointer = pointer(operand.get(0), at + "[0]");
        JsonNode text = operand.get(1);
        if (!text.isTextual()) {
            throw FilterException.invalid(at + "[1]", "prefix takes a string");
        }
        literal(text, at + "[1]");
        return new Expr.Prefix(pointer, text.textValue());
    }

    private Expr junction(boolean all, JsonNode operand, String at, int depth) throws FilterException {
        if (!operand.isArray()) {
            throw FilterException.invalid(at, "expected a list of filters");
        }
        if (operand.size() > limits.maxNodes() - nodes) {
            throw FilterException.tooLarge(at, "more than " + limits.maxNodes() + " operators");
        }
        List<Expr> operands = new ArrayList<>(operand.size());
        for (int i = 0; i < operand.size(); i++) {
            operands.add(expr(operand.get(i), at + "[" + i + "]", depth + 1));
        }
        return new Expr.Junction(all, List.copyOf(operands));
    }

    private static void pair(JsonNode operand, String at, String shape) throws FilterException {
        if (!operand.isArray() || operand.size() != 2) {
            throw FilterException.invalid(at, "expected " + shape);
        }
    }

    private Pointer pointer(JsonNode node, String at) throws FilterException {
        Pointer pointer = Pointer.parse(node, at, limits);
        if (pointer.size() == 0 || !switch (pointer.segment(0)) {
            case "value", "key", "headers" -> true;
            default -> false;
        }) {
            throw FilterException.invalid(at, "a filter's JSON Pointer starts with /value, /key or /headers: '"
                    + FilterException.excerpt(pointer.toString(), 64) + "'");
        }
        return pointer;
    }

    /** Checks a literal's strings, numbers and nesting, walking it without recursion. */
    private void literal(JsonNode literal, String at) throws FilterException {
        Deque<JsonNode> pending = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        pending.push(literal);
        depths.push(0);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            int depth = depths.pop();
            if (depth > limits.maxDepth()) {
                throw FilterException.tooLarge(at, "literal nested deeper than " + limits.maxDepth());
            }
            if (node.isTextual()) {
                string(node.textValue(), at);
            }
            else if (node.isNumber()) {
                if (JsonValues.numberKey(node) == null) {
                    throw FilterException.invalid(at, "not a finite number");
                }
            }
            else if (node.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> member = it.next();
                    string(member.getKey(), at);
                    pending.push(member.getValue());
                    depths.push(depth + 1);
                }
            }
            else if (node.isArray()) {
                for (JsonNode element : node) {
                    pending.push(element);
                    depths.push(depth + 1);
                }
            }
            else if (!node.isBoolean() && !node.isNull()) {
                throw FilterException.invalid(at, "not a JSON literal");
            }
        }
    }

    private void string(String text, String at) throws FilterException {
        if (text.length() > limits.maxStringChars()) {
            throw FilterException.tooLarge(at, "string longer than " + limits.maxStringChars() + " characters");
        }
    }
}
