package io.sluice.format.mask;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One compiled field mask: replaces (or removes) the member its pointer names in a decoded value, in place. A value
 * without that member is left as it is (there is nothing to hide); a member holding a value the mask cannot take is
 * the record's failure ({@link UnmaskableException}), never passed unmasked.
 */
final class FieldMask {

    private static final char MASK_CHAR = '*';

    private final FieldPath path;
    private final MaskKind kind;
    private final JsonNode fixed;
    private final int chars;
    private final HashKey hashKey;

    FieldMask(FieldMaskConfig config, HashKey hashKey) {
        this.path = FieldPath.parse(config.path());
        this.kind = config.mask();
        this.fixed = config.value() == null ? null : config.value().deepCopy();
        this.chars = config.chars() == null ? 0 : config.chars();
        this.hashKey = hashKey;
    }

    String path() {
        return path.text();
    }

    MaskKind kind() {
        return kind;
    }

    /** Masks the field in {@code root}, which the caller owns (a copy of the decoded value). */
    void apply(JsonNode root) throws UnmaskableException {
        JsonNode parent = root.at(path.parent());
        if (parent instanceof ObjectNode object) {
            JsonNode current = object.get(path.member());
            if (current == null) {
                return;
            }
            if (kind == MaskKind.REMOVE) {
                object.remove(path.member());
            } else {
                object.set(path.member(), masked(current));
            }
        } else if (parent instanceof ArrayNode array && path.index() >= 0 && path.index() < array.size()) {
            if (kind == MaskKind.REMOVE) {
                throw new UnmaskableException(path.text() + ": remove cannot take an array element out (the elements after it would move)");
            }
            array.set(path.index(), masked(array.get(path.index())));
        }
    }

    private JsonNode masked(JsonNode current) throws UnmaskableException {
        if (current.isNull() && (kind == MaskKind.HASH || kind == MaskKind.KEEP_FIRST || kind == MaskKind.KEEP_LAST)) {
            return current; // an optional field left empty: null hides nothing, and a schema allowing it allows it still
        }
        return switch (kind) {
            case NULL -> NullNode.getInstance();
            case FIXED -> fixed.deepCopy();
            case HASH -> JsonNodeFactory.instance.textNode(hashKey.hash(current.isTextual() ? current.textValue() : current.toString()));
            case KEEP_FIRST, KEEP_LAST -> {
                if (!current.isTextual()) {
                    throw new UnmaskableException(path.text() + ": " + kind.yamlName() + " needs a string, the value is " + kindOf(current));
                }
                yield JsonNodeFactory.instance.textNode(keep(current.textValue(), chars, kind == MaskKind.KEEP_FIRST));
            }
            case REMOVE -> throw new IllegalStateException("handled by apply");
        };
    }

    /**
     * The text with every character but the first or last {@code n} replaced by {@code *}, counted in code points (a
     * character outside the BMP is one character, never half of one). A text of {@code n} characters or fewer is
     * masked whole: keeping all of it would hide nothing.
     */
    static String keep(String text, int n, boolean first) {
        int length = text.codePointCount(0, text.length());
        if (length <= n) {
            return String.valueOf(MASK_CHAR).repeat(length);
        }
        StringBuilder out = new StringBuilder(text.length());
        if (first) {
            int end = text.offsetByCodePoints(0, n);
            out.append(text, 0, end);
            out.append(String.valueOf(MASK_CHAR).repeat(length - n));
        } else {
            int start = text.offsetByCodePoints(0, length - n);
            out.append(String.valueOf(MASK_CHAR).repeat(length - n));
            out.append(text, start, text.length());
        }
        return out.toString();
    }

    private static String kindOf(JsonNode node) {
        return node.isNumber() ? "a number" : node.isBoolean() ? "a boolean" : node.isNull() ? "null" : node.isObject() ? "an object"
                : node.isArray() ? "an array" : "not a string";
    }
}
