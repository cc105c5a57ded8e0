package io.sluice.format.mask;

import java.util.List;

/**
 * The {@code masking} section, the same in the bridge's configuration and in the FieldMasking filter's, so one
 * definition of a mask serves both (docs/masking.md).
 *
 * @param hashKeyFile a file holding the secret of {@code mask: hash} (at least 32 bytes; trailing whitespace is not
 *                    part of it); required when a rule hashes. Never logged.
 * @param rules       by topic; the first rule whose {@code topics} match a topic applies, topics none match pass whole
 */
public record MaskingConfig(String hashKeyFile, List<MaskRule> rules) {

    /** Rules, at most: each topic is matched against them once, then remembered. */
    static final int MAX_RULES = 256;

    public MaskingConfig {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** Problems, each naming its field under {@code prefix} (e.g. {@code masking}). */
    public void validate(String prefix, List<String> problems) {
        if (rules.size() > MAX_RULES) {
            problems.add(prefix + ".rules: more than " + MAX_RULES + " rules");
            return;
        }
        boolean hashes = false;
        for (int i = 0; i < rules.size(); i++) {
            MaskRule rule = rules.get(i);
            if (rule == null) {
                problems.add(prefix + ".rules[" + i + "]: empty");
                continue;
            }
            rule.validate(prefix + ".rules[" + i + "]", problems);
            hashes |= rule.fields().stream().anyMatch(f -> f != null && f.mask() == MaskKind.HASH);
        }
        if (hashes && (hashKeyFile == null || hashKeyFile.isBlank())) {
            problems.add(prefix + ".hashKeyFile: required: a rule masks with hash, whose HMAC needs a secret");
        }
    }
}
