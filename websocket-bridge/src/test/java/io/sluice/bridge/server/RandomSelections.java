package io.sluice.bridge.server;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Random records, filters and field lists for {@link FilterOracleTest}, drawn from small shared pools of names, strings
 * and numbers so that filters hit records often: equal and unequal spellings of one number (1, 1.0, 1E+0), longs past
 * 2^53, strings that order differently by UTF-16 unit and by code point, missing fields, nulls, nested objects and
 * arrays, text and binary values, tombstones, headers repeated, empty or invalid UTF-8.
 */
final class RandomSelections {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** Keys with a {@code /} fall under the prefixes {@code /t/fx/*} and {@code /t/eq/*}; "" and null share {@code /t/}. */
    static final List<String> KEYS = List.of("a", "b", "fx/eur", "fx/gbp", "fx/chf/spot", "eq/acme", "eq/zed", "", "rare");
    static final String NO_KEY = null;
    static final String RARE = "rare";

    static final List<String> STRINGS = List.of("buy", "sell", "eu", "uk", "us", "a", "ab", "b", "Z", "é", "\uD83D\uDE00",
            "\uFFFD", "\uFF21", "", "10", "fx/eur", "x", "y");
    private static final List<String> HEADER_NAMES = List.of("region", "src", "prio");
    private static final List<String> VALUE_FIELDS = List.of("side", "price", "qty", "name", "flag", "quote", "items",
            "a/b", "m~n", "tags", "n");

    private final Random random;
    private int rareLeft = 3;

    RandomSelections(Random random) {
        this.random = random;
    }

    private <T> T pick(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }

    private boolean chance(double p) {
        return random.nextDouble() < p;
    }

    JsonNode number() {
        return switch (random.nextInt(12)) {
            case 0 -> F.numberNode(0);
            case 1 -> F.numberNode(1);
            case 2 -> F.numberNode(1.0);
            case 3 -> F.numberNode(new BigDecimal("1.00"));
            case 4 -> F.numberNode(2.5);
            case 5 -> F.numberNode(10);
            case 6 -> F.numberNode(100);
            case 7 -> F.numberNode(new BigDecimal("1E+2"));
            case 8 -> F.numberNode(101.5);
            case 9 -> F.numberNode(-3);
            case 10 -> F.numberNode(new BigInteger("9007199254740993"));
            default -> F.numberNode(9007199254740992L);
        };
    }

    JsonNode scalar() {
        return switch (random.nextInt(10)) {
            case 0, 1, 2, 3 -> F.textNode(pick(STRINGS));
            case 4, 5, 6 -> number();
            case 7 -> F.booleanNode(random.nextBoolean());
            default -> F.nullNode();
        };
    }

    private JsonNode fieldValue(String name, int depth) {
        switch (name) {
            case "side":
                return chance(0.8) ? F.textNode(random.nextBoolean() ? "buy" : "sell") : scalar();
            case "price", "qty", "n":
                return chance(0.8) ? number() : scalar();
            case "quote", "items", "tags":
                if (depth > 1 || chance(0.2)) {
                    return scalar();
                }
                if (name.equals("quote") || (name.equals("items") && chance(0.2))) {
                    ObjectNode quote = F.objectNode();
                    if (chance(0.8)) {
                        quote.set("bid", number());
                    }
                    if (chance(0.6)) {
                        quote.set("ask", number());
                    }
                    if (chance(0.3)) {
                        quote.set("sku", scalar());
                    }
                    return quote;
                }
                ArrayNode items = F.arrayNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    if (name.equals("items") && chance(0.8)) {
                        ObjectNode item = items.addObject();
                        item.set("sku", chance(0.8) ? F.textNode(pick(STRINGS)) : scalar());
                        if (chance(0.5)) {
                            item.set("n", number());
                        }
                    }
                    else {
                        items.add(scalar());
                    }
                }
                return items;
            default:
                return scalar();
        }
    }

    private ObjectNode object(int depth) {
        ObjectNode o = F.objectNode();
        for (String name : VALUE_FIELDS) {
            if (chance(0.55)) {
                o.set(name, fieldValue(name, depth));
            }
        }
        return o;
    }

    /** A record to produce: key (null for none), value (null for a tombstone), headers. */
    record Produced(String key, byte[] value, List<Header> headers) {
    }

    Produced record() {
        String key;
        do {
            key = chance(0.05) ? NO_KEY : pick(KEYS);
        } while (RARE.equals(key) && rareLeft == 0);
        if (RARE.equals(key)) {
            rareLeft--; // at most three: the node's small cache keeps them all, so recovering that endpoint uses the cache
        }
        return new Produced(key, value(), headers());
    }

    private byte[] value() {
        int kind = random.nextInt(100);
        String text;
        if (kind < 60) {
            text = object(0).toString() + (chance(0.1) ? "\n  " : "");
        }
        else if (kind < 66) {
            ArrayNode array = F.arrayNode();
            array.add(object(1));
            array.add(scalar());
            text = array.toString();
        }
        else if (kind < 78) {
            text = switch (random.nextInt(8)) {
                case 0 -> "buy";
                case 1 -> "42";
                case 2 -> "true";
                case 3 -> "null";
                case 4 -> "{\"side\":\"buy\",\"side\":\"sell\"}"; // a key twice: not JSON for the bridge, so text
                case 5 -> "{\"side\":\"buy\"} trailing";
                case 6 -> "";
                default -> pick(STRINGS);
            };
        }
        else if (kind < 86) {
            return new byte[] {(byte) 0xff, 0x7b, (byte) random.nextInt(256), (byte) 0xc3};
        }
        else {
            return null;
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private List<Header> headers() {
        List<Header> headers = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            byte[] value = switch (random.nextInt(8)) {
                case 0 -> null;
                case 1 -> new byte[] {(byte) 0xc3}; // invalid UTF-8: U+FFFD
                case 2 -> "1".getBytes(StandardCharsets.UTF_8);
                default -> pick(STRINGS).getBytes(StandardCharsets.UTF_8);
            };
            headers.add(new RecordHeader(pick(HEADER_NAMES), value));
        }
        return headers;
    }

    // ---- selections

    private static final List<String> POINTERS = List.of("/value/side", "/value/price", "/value/qty", "/value/name",
            "/value/flag", "/value/n", "/value/quote", "/value/quote/bid", "/value/quote/ask", "/value/items/0/sku",
            "/value/items/1/n", "/value/items/01", "/value/items/-", "/value/tags/0", "/value/a~1b", "/value/m~0n",
            "/value", "/value/0/side", "/value/1", "/value/missing", "/key", "/headers/region", "/headers/src",
            "/headers/prio", "/headers");
    private static final List<String> FIELDS = List.of("/side", "/price", "/quote", "/quote/bid", "/quote/ask", "/items",
            "/items/0/sku", "/items/1", "/items/2/n", "/items/-", "/tags/0", "/a~1b", "/m~0n", "/nope", "/0", "/0/side",
            "/1", "/n");

    JsonNode filter(int depth) {
        int op = random.nextInt(depth >= 2 ? 10 : 13);
        String pointer = pick(POINTERS);
        ObjectNode f = F.objectNode();
        switch (op) {
            case 0, 1 -> f.putArray(random.nextBoolean() ? "eq" : "ne").add(pointer).add(literal());
            case 2, 3 -> f.putArray(pick(List.of("lt", "le", "gt", "ge"))).add(pointer)
                    .add(random.nextBoolean() ? number() : F.textNode(pick(STRINGS)));
            case 4 -> {
                ArrayNode in = f.putArray("in").add(pointer).addArray();
                int n = 1 + random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    in.add(literal());
                }
            }
            case 5, 6 -> f.putArray("prefix").add(pointer).add(pick(List.of("b", "bu", "fx/", "e", "", "\uD83D\uDE00", "1")));
            case 7, 8, 9 -> f.put("exists", pointer);
            case 10 -> f.set("not", filter(depth + 1));
            default -> {
                ArrayNode operands = f.putArray(random.nextBoolean() ? "all" : "any");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    operands.add(filter(depth + 1));
                }
            }
        }
        return f;
    }

    private JsonNode literal() {
        int kind = random.nextInt(12);
        if (kind == 0) {
            ObjectNode quote = F.objectNode();
            quote.set("bid", number());
            return quote;
        }
        if (kind == 1) {
            return F.arrayNode().add(scalar());
        }
        if (kind == 2) {
            return F.nullNode();
        }
        return scalar();
    }

    /** Top-level filters: mostly combinations, so that most clients get some records and not others. */
    JsonNode topFilter() {
        int kind = random.nextInt(10);
        if (kind < 3) {
            return filter(0);
        }
        ObjectNode f = F.objectNode();
        if (kind == 9) {
            f.set("not", filter(1));
            return f;
        }
        ArrayNode operands = f.putArray(kind < 6 ? "all" : "any");
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            operands.add(filter(1));
        }
        return f;
    }

    ArrayNode fields() {
        ArrayNode fields = F.arrayNode();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            fields.add(pick(FIELDS));
        }
        return fields;
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    boolean nextChance(double p) {
        return chance(p);
    }
}
