package io.sluice.format;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;

/** What the bridge does with a record its format cannot decode (docs/bridge-formats.md, "When a record cannot be decoded"). */
public enum DecodeFailurePolicy {
    /** Deliver it as the bridge does without a format: JSON if it is JSON, else text, else base64. The default. */
    RAW,
    /** Deliver nothing; subscribers see a gap in {@code seq}, as for a filtered record. */
    DROP,
    /** Deliver a gap notice naming the offset and the reason, so clients know a record was skipped. */
    GAP;

    @JsonCreator
    static DecodeFailurePolicy fromYaml(String text) {
        return valueOf(text.strip().toUpperCase(Locale.ROOT));
    }
}
