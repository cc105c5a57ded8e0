package io.sluice.format.mask;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** What a mask puts in place of a field (docs/masking.md, "Mask kinds"). */
public enum MaskKind {
    /** JSON null: the field must be able to hold null (an Avro union with null, a JSON Schema allowing null). */
    NULL("null"),
    /** The configured {@code value}, which must fit the field's type. */
    FIXED("fixed"),
    /**
     * HMAC-SHA256 of the value under the configured secret, as 43 characters of unpadded base64url: equal values
     * stay equal (joinable, countable) and cannot be recovered without the secret. Needs a string field.
     */
    HASH("hash"),
    /** The first {@code chars} characters kept, every other one replaced by {@code *}. Needs a string field. */
    KEEP_FIRST("keepFirst"),
    /** The last {@code chars} characters kept, every other one replaced by {@code *}. Needs a string field. */
    KEEP_LAST("keepLast"),
    /** The field left out: an object member only, and one the schema lets be absent. */
    REMOVE("remove");

    private final String yamlName;

    MaskKind(String yamlName) {
        this.yamlName = yamlName;
    }

    @JsonValue
    public String yamlName() {
        return yamlName;
    }

    @JsonCreator
    static MaskKind fromYaml(String text) {
        for (MaskKind kind : values()) {
            if (kind.yamlName.equalsIgnoreCase(text.strip()) || kind.name().equals(text.strip().toUpperCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown mask '" + text + "' (expected null, fixed, hash, keepFirst, keepLast or remove)");
    }
}
