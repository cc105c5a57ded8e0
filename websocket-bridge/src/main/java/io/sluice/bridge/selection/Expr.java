package io.sluice.bridge.selection;

import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/** A parsed filter expression: one node of the bounded AST, evaluated against a record's parts. */
sealed interface Expr {

    boolean matches(RecordView view);

    /** Appends this expression's canonical text (see {@link SubscriptionFilter#canonical()}). */
    void appendCanonical(StringBuilder out);

    /** The node a filter pointer names: its first segment picks value, key or headers. Null when missing. */
    static JsonNode resolve(Pointer pointer, RecordView view) {
        String part = pointer.segment(0);
        if (part.equals("value")) {
            return pointer.resolve(view.value(), 1);
        }
        if (part.equals("key")) {
            return pointer.resolve(view.key(), 1);
        }
        // "headers": the parser allows nothing else
        if (pointer.size() == 1) {
            return view.headers();
        }
        return pointer.resolve(view.header(pointer.segment(1)), 2);
    }

    enum Comparison {
        EQ("eq"), NE("ne"), LT("lt"), LE("le"), GT("gt"), GE("ge");

        final String name;

        Comparison(String name) {
            this.name = name;
        }

        boolean ordering() {
            return this != EQ && this != NE;
        }
    }

    /**
     * {@code eq}/{@code ne}: present and (not) JSON-equal. Ordering: both numbers or both strings, else no match.
     * A missing field matches none of them.
     */
    record Compare(Comparison op, Pointer pointer, JsonNode literal, Object numberKey) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            JsonNode node = resolve(pointer, view);
            if (node == null) {
                return false;
            }
            switch (op) {
                case EQ:
                    return JsonValues.equal(node, literal);
                case NE:
                    return !JsonValues.equal(node, literal);
                default:
                    break;
            }
            int c;
            if (numberKey != null) {
                Object key = JsonValues.numberKey(node);
                if (key == null) {
                    return false;
                }
                c = JsonValues.compareNumbers(key, numberKey);
            }
            else if (node.isTextual()) {
                c = JsonValues.compareStrings(node.textValue(), literal.textValue());
            }
            else {
                return false;
            }
            return switch (op) {
                case LT -> c < 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                default -> c >= 0;
            };
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append("{\"").append(op.name).append("\":[");
            JsonValues.appendString(pointer.toString(), out);
            out.append(',');
            JsonValues.appendCanonical(literal, out);
            out.append("]}");
        }
    }

    /**
     * {@code in}: present and JSON-equal to one of the literals. Scalars are looked up in hash sets (numbers by their
     * {@link JsonValues#numberKey}); objects and arrays, rarer, are compared one by one.
     */
    record In(Pointer pointer, List<JsonNode> literals, Set<String> strings, Set<Object> numbers,
              boolean hasTrue, boolean hasFalse, boolean hasNull, List<JsonNode> containers) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            JsonNode node = resolve(pointer, view);
            if (node == null) {
                return false;
            }
            if (node.isTextual()) {
                return strings.contains(node.textValue());
            }
            if (node.isNumber()) {
                Object key = JsonValues.numberKey(node);
                return key != null && numbers.contains(key);
            }
            if (node.isBoolean()) {
                return node.booleanValue() ? hasTrue : hasFalse;
            }
            if (node.isNull()) {
                return hasNull;
            }
            for (JsonNode container : containers) {
                if (JsonValues.equal(node, container)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append("{\"in\":[");
            JsonValues.appendString(pointer.toString(), out);
            out.append(",[");
            for (int i = 0; i < literals.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                JsonValues.appendCanonical(literals.get(i), out);
            }
            out.append("]]}");
        }
    }

    /** {@code prefix}: a string that starts with the literal; anything else, or missing, does not match. */
    record Prefix(Pointer pointer, String prefix) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            JsonNode node = resolve(pointer, view);
            return node != null && node.isTextual() && node.textValue().startsWith(prefix);
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append("{\"prefix\":[");
            JsonValues.appendString(pointer.toString(), out);
            out.append(',');
            JsonValues.appendString(prefix, out);
            out.append("]}");
        }
    }

    /** {@code exists}: the pointer resolves to something, JSON null included. */
    record Exists(Pointer pointer) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            return resolve(pointer, view) != null;
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append("{\"exists\":");
            JsonValues.appendString(pointer.toString(), out);
            out.append('}');
        }
    }

    /** {@code all} (true when empty) and {@code any} (false when empty), evaluated in order, stopping early. */
    record Junction(boolean all, List<Expr> operands) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            for (Expr operand : operands) {
                if (operand.matches(view) != all) {
                    return !all;
                }
            }
            return all;
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append(all ? "{\"all\":[" : "{\"any\":[");
            for (int i = 0; i < operands.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                operands.get(i).appendCanonical(out);
            }
            out.append("]}");
        }
    }

    record Not(Expr operand) implements Expr {
        @Override
        public boolean matches(RecordView view) {
            return !operand.matches(view);
        }

        @Override
        public void appendCanonical(StringBuilder out) {
            out.append("{\"not\":");
            operand.appendCanonical(out);
            out.append('}');
        }
    }
}
