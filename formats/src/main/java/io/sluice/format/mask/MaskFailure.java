package io.sluice.format.mask;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * What happens to a record a rule names but whose value cannot be masked (it does not decode, a masked field holds a
 * value its mask cannot take, the masked value no longer fits the schema). Never delivered unmasked: masking fails
 * closed.
 */
public enum MaskFailure {
    /**
     * The default. The proxy answers the record's partition with CORRUPT_MESSAGE and no records (consumers stop at it,
     * as at an undecryptable record); the bridge delivers a gap notice in the record's place.
     */
    REFUSE,
    /**
     * The record is withheld: the proxy removes it from its batch keeping its offset taken (consumers move past it), the
     * bridge delivers nothing for it (subscribers see a jump in {@code seq}, as for a filtered record).
     */
    DROP;

    @JsonCreator
    static MaskFailure fromYaml(String text) {
        return valueOf(text.strip().toUpperCase(Locale.ROOT));
    }
}
