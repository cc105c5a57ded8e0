package io.sluice.bridge.server;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The test's own reading of docs/bridge-filters.md and docs/bridge-protocol.md, written from the documents and not
 * from {@code io.sluice.bridge.selection}: what a record's payload is, whether a filter selects it, and what a field list
 * makes of it. Deliberately naive (it builds the whole view object and walks it), so that it is easy to check against
 * the tables of the documents and shares no code, and no bug, with the node.
 */
final class OracleSelection {

    // Exact numbers: 9007199254740993 must not equal 9007199254740992.
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private OracleSelection() {
    }

    /** The {@code format} and {@code payload} a record's value is sent as, without a field list. */
    record Payload(String format, JsonNode payload) {
    }

    static Payload payloadOf(byte[] value) {
        if (value == null) {
            return new Payload("none", NullNode.getInstance());
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(value)).toString();
        }
        catch (CharacterCodingException e) {
            return new Payload("base64", TextNode.valueOf(Base64.getEncoder().encodeToString(value)));
        }
        if (!text.startsWith("\uFEFF")) {
            try {
                JsonNode json = STRICT.readTree(text);
                if (json != null && (json.isObject() || json.isArray())) {
                    return new Payload("json", json);
                }
            }
            catch (Exception notOneJsonValue) {
                // text
            }
        }
        return new Payload("text", TextNode.valueOf(text));
    }

    /** {@code {"value": ..., "key": ..., "headers": {...}}} as the filter language's pointers see a record. */
    static ObjectNode view(ConsumerRecord<byte[], byte[]> record) {
        ObjectNode view = JsonNodeFactory.instance.objectNode();
        view.set("value", payloadOf(record.value()).payload());
        view.set("key", record.key() == null ? NullNode.getInstance() : TextNode.valueOf(new String(record.key(), StandardCharsets.UTF_8)));
        ObjectNode headers = view.putObject("headers");
        for (Header h : record.headers()) {
            headers.set(h.key(), h.value() == null ? NullNode.getInstance() : TextNode.valueOf(new String(h.value(), StandardCharsets.UTF_8)));
        }
        return view;
    }

    // ---- the filter language

    static boolean matches(JsonNode filter, JsonNode view) {
        if (filter == null) {
            return true;
        }
        Map.Entry<String, JsonNode> op = filter.fields().next();
        JsonNode arg = op.getValue();
        switch (op.getKey()) {
            case "all": {
                for (JsonNode f : arg) {
                    if (!matches(f, view)) {
                        return false;
                    }
                }
                return true;
            }
            case "any": {
                for (JsonNode f : arg) {
                    if (matches(f, view)) {
                        return true;
                    }
                }
                return false;
            }
            case "not":
                return !matches(arg, view);
            case "exists":
                return resolve(view, arg.textValue()) != null;
            default:
                break;
        }
        JsonNode actual = resolve(view, arg.get(0).textValue());
        JsonNode literal = arg.get(1);
        if (actual == null) {
            return false; // a missing field: no comparison matches
        }
        return switch (op.getKey()) {
            case "eq" -> jsonEquals(actual, literal);
            case "ne" -> !jsonEquals(actual, literal);
            case "in" -> {
                for (JsonNode l : literal) {
                    if (jsonEquals(actual, l)) {
                        yield true;
                    }
                }
                yield false;
            }
            case "prefix" -> actual.isTextual() && actual.textValue().startsWith(literal.textValue());
            case "lt", "le", "gt", "ge" -> {
                Integer c = order(actual, literal);
                if (c == null) {
                    yield false;
                }
                yield switch (op.getKey()) {
                    case "lt" -> c < 0;
                    case "le" -> c <= 0;
                    case "gt" -> c > 0;
                    default -> c >= 0;
                };
            }
            default -> throw new IllegalArgumentException("not an operator of the oracle: " + op.getKey());
        };
    }

    /** Numbers with numbers, strings with strings (by code point); null when not ordered. */
    private static Integer order(JsonNode actual, JsonNode literal) {
        if (actual.isNumber() && literal.isNumber()) {
            return actual.decimalValue().compareTo(literal.decimalValue());
        }
        if (actual.isTextual() && literal.isTextual()) {
            return compareCodePoints(actual.textValue(), literal.textValue());
        }
        return null;
    }

    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /** JSON equality: numbers by value, objects by members in any order, arrays in order. */
    static boolean jsonEquals(JsonNode a, JsonNode b) {
        if (a.isNumber() || b.isNumber()) {
            return a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> member = it.next();
                JsonNode other = b.get(member.getKey());
                if (other == null || !jsonEquals(member.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!jsonEquals(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.getNodeType() != b.getNodeType()) {
            return false;
        }
        return a.equals(b); // strings, booleans, null
    }

    // ---- JSON Pointers

    static List<String> segments(String pointer) {
        List<String> out = new ArrayList<>();
        if (pointer.isEmpty()) {
            return out;
        }
        for (String raw : pointer.substring(1).split("/", -1)) {
            out.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    /** RFC 6901 as the document says: digits without a leading zero index an array; anything else there is nothing. */
    static JsonNode resolve(JsonNode node, String pointer) {
        for (String segment : segments(pointer)) {
            if (node == null) {
                return null;
            }
            if (node.isObject()) {
                node = node.get(segment);
            }
            else if (node.isArray()) {
                if (!segment.matches("0|[1-9][0-9]{0,8}")) {
                    return null;
                }
                node = node.get(Integer.parseInt(segment));
            }
            else {
                return null;
            }
        }
        return node;
    }

    // ---- field lists

    /**
     * The projection of a value: an object holding just the listed paths, arrays on the way rebuilt as objects keyed
     * by index, missing paths absent, a pointer inside another listed one ignored (the wider wins).
     */
    static ObjectNode project(List<String> fields, JsonNode value) {
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        for (String pointer : fields) {
            List<String> segments = segments(pointer);
            boolean covered = false;
            for (String other : fields) {
                List<String> o = segments(other);
                if (!other.equals(pointer) && o.size() < segments.size() && segments.subList(0, o.size()).equals(o)) {
                    covered = true;
                }
            }
            JsonNode selected = resolve(value, pointer);
            if (covered || selected == null) {
                continue;
            }
            ObjectNode parent = result;
            for (int i = 0; i < segments.size() - 1; i++) {
                JsonNode child = parent.get(segments.get(i));
                parent = child instanceof ObjectNode o ? o : parent.putObject(segments.get(i));
            }
            parent.set(segments.get(segments.size() - 1), selected.deepCopy());
        }
        return result;
    }
}
