package io.sluice.bridge.selection;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random records and random filters: {@link SubscriptionFilter#matches} against a reference evaluator written differently, which
 * interprets the filter JSON directly over the whole record view built as one object, resolves pointers with Jackson's
 * own {@code JsonNode.at}, and compares values converted to plain Java (BigDecimal, code point arrays, sorted maps).
 * Also: the canonical form parses back to an equal filter that decides every record the same way.
 */
class FilterPropertyTest {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final String[] NAMES = {"a", "b", "a/b", "m~n", "0", "1"};
    private static final String[] STRINGS = {"", "a", "ab", "b", "A", "\uD83D\uDE00", "\uFFFD", "a/b"};
    private static final String[] OPS = {"eq", "ne", "lt", "le", "gt", "ge", "in", "prefix", "exists", "all", "any", "not"};

    /** JSON null as plain Java: equal only to itself. */
    private static final Object JSON_NULL = new Object();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final long seed = System.nanoTime();
    private final Random random = new Random(seed);

    @Test
    void theFilterDecidesEveryRecordAsTheReferenceDoes() throws Exception {
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            records.add(record());
        }
        int matched = 0;
        int total = 0;
        for (int f = 0; f < 3000; f++) {
            JsonNode filterJson = filter(0);
            SubscriptionFilter filter = SubscriptionFilter.parse(filterJson, FilterLimits.defaults());
            SubscriptionFilter reparsed = SubscriptionFilter.parse(JSON.readTree(filter.canonical()), FilterLimits.defaults());
            assertThat(reparsed).as("seed %d: %s", seed, filterJson).isEqualTo(filter);
            for (Record record : records) {
                boolean expected = reference(filterJson, record.whole);
                assertThat(filter.matches(record.view)).as("seed %d: %s on %s", seed, filterJson, record.whole)
                        .isEqualTo(expected);
                assertThat(reparsed.matches(record.view)).as("seed %d: canonical %s", seed, filter.canonical())
                        .isEqualTo(expected);
                matched += expected ? 1 : 0;
                total++;
            }
        }
        // The generator must produce both outcomes often, or the comparison proves little.
        assertThat(matched).as("seed %d", seed).isBetween(total / 10, total - total / 10);
    }

    private record Record(RecordView view, JsonNode whole) {
    }

    private Record record() {
        JsonNode value = random.nextInt(10) == 0 ? F.nullNode() : object(0);
        JsonNode key = random.nextBoolean() ? F.textNode(pick(STRINGS)) : scalar();
        Map<String, String> headers = new HashMap<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            headers.put(pick(NAMES), random.nextInt(4) == 0 ? null : pick(STRINGS));
        }
        ObjectNode whole = F.objectNode();
        whole.set("value", value);
        whole.set("key", key);
        ObjectNode h = whole.putObject("headers");
        headers.forEach((name, text) -> h.set(name, text == null ? F.nullNode() : F.textNode(text)));
        return new Record(RecordView.of(value, key, headers), whole);
    }

    private JsonNode value(int depth) {
        int kind = random.nextInt(depth >= 2 ? 6 : 8);
        return switch (kind) {
            case 6 -> object(depth + 1);
            case 7 -> array(depth + 1);
            default -> scalar();
        };
    }

    private ObjectNode object(int depth) {
        ObjectNode object = F.objectNode();
        for (int i = random.nextInt(5); i > 0; i--) {
            object.set(pick(NAMES), value(depth));
        }
        return object;
    }

    private ArrayNode array(int depth) {
        ArrayNode array = F.arrayNode();
        for (int i = random.nextInt(3); i > 0; i--) {
            array.add(value(depth));
        }
        return array;
    }

    private JsonNode scalar() {
        return switch (random.nextInt(9)) {
            case 0 -> F.numberNode(random.nextInt(5) - 2);
            case 1 -> F.numberNode((double) (random.nextInt(5) - 2));
            case 2 -> F.numberNode(random.nextInt(5) - 2 + 0.5);
            case 3 -> new DecimalNode(new BigDecimal(random.nextInt(5) - 2).setScale(random.nextInt(3)));
            case 4 -> F.numberNode((long) random.nextInt(5) - 2);
            case 5 -> F.booleanNode(random.nextBoolean());
            case 6 -> F.nullNode();
            default -> F.textNode(pick(STRINGS));
        };
    }

    private JsonNode filter(int depth) {
        String op = depth >= 3 ? OPS[random.nextInt(9)] : pick(OPS);
        ObjectNode node = F.objectNode();
        switch (op) {
            case "exists" -> node.put(op, pointer());
            case "not" -> node.set(op, filter(depth + 1));
            case "all", "any" -> {
                ArrayNode operands = node.putArray(op);
                for (int i = random.nextInt(4); i > 0; i--) {
                    operands.add(filter(depth + 1));
                }
            }
            case "in" -> {
                ArrayNode list = node.putArray(op).add(pointer()).addArray();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(random.nextInt(6) == 0 ? value(1) : scalar());
                }
            }
            case "prefix" -> node.putArray(op).add(pointer()).add(pick(STRINGS));
            case "eq", "ne" -> node.putArray(op).add(pointer()).add(random.nextInt(6) == 0 ? value(1) : scalar());
            default -> {
                JsonNode literal = scalar();
                while (!literal.isNumber() && !literal.isTextual()) {
                    literal = scalar();
                }
                node.putArray(op).add(pointer()).add(literal);
            }
        }
        return node;
    }

    private String pointer() {
        StringBuilder out = new StringBuilder("/").append(pick(new String[] {"value", "value", "value", "key", "headers"}));
        for (int i = random.nextInt(3); i > 0; i--) {
            out.append('/').append(pick(NAMES).replace("~", "~0").replace("/", "~1"));
        }
        return out.toString();
    }

    private <T> T pick(T[] options) {
        return options[random.nextInt(options.length)];
    }

    // ---- the reference: interprets the JSON filter over the whole view ----

    private static boolean reference(JsonNode filter, JsonNode whole) {
        String op = filter.fieldNames().next();
        JsonNode arg = filter.get(op);
        switch (op) {
            case "all": {
                boolean result = true;
                for (JsonNode operand : arg) {
                    result &= reference(operand, whole);
                }
                return result;
            }
            case "any": {
                boolean result = false;
                for (JsonNode operand : arg) {
                    result |= reference(operand, whole);
                }
                return result;
            }
            case "not":
                return !reference(arg, whole);
            case "exists":
                return !whole.at(arg.textValue()).isMissingNode();
            default:
                break;
        }
        JsonNode found = whole.at(arg.get(0).textValue());
        if (found.isMissingNode()) {
            return false;
        }
        Object actual = plain(found);
        Object literal = plain(arg.get(1));
        switch (op) {
            case "eq":
                return same(actual, literal);
            case "ne":
                return !same(actual, literal);
            case "in":
                return ((List<?>) literal).stream().anyMatch(candidate -> same(actual, candidate));
            case "prefix":
                return actual instanceof String s && s.startsWith((String) literal);
            default:
                break;
        }
        int c;
        if (actual instanceof BigDecimal x && literal instanceof BigDecimal y) {
            c = x.compareTo(y);
        }
        else if (actual instanceof String x && literal instanceof String y) {
            c = Arrays.compare(x.codePoints().toArray(), y.codePoints().toArray());
        }
        else {
            return false;
        }
        return switch (op) {
            case "lt" -> c < 0;
            case "le" -> c <= 0;
            case "gt" -> c > 0;
            default -> c >= 0;
        };
    }

    /** JSON as plain Java: BigDecimal, String, Boolean, a null marker, List, sorted Map. */
    private static Object plain(JsonNode node) {
        if (node.isNumber()) {
            return new BigDecimal(node.numberValue().toString());
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>();
            node.forEach(element -> list.add(plain(element)));
            return list;
        }
        if (node.isObject()) {
            Map<String, Object> map = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                map.put(member.getKey(), plain(member.getValue()));
            }
            return map;
        }
        return JSON_NULL;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (!x.keySet().equals(y.keySet())) {
                return false;
            }
            for (Object name : x.keySet()) {
                if (!same(x.get(name), y.get(name))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }
}
