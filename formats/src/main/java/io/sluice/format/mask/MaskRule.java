package io.sluice.format.mask;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One entry of {@code masking.rules}: the topics it covers, the fields it masks, who sees them whole anyway, and what
 * happens to a record that cannot be masked. The first rule whose pattern matches a topic applies (as in
 * {@code formats}).
 *
 * @param topics           a regular expression matched against the whole topic name, as {@code formats[].topics}
 * @param fields           the masked fields
 * @param unmaskPrincipals regular expressions matched against the whole principal name: who sees every field of the
 *                         rule whole (besides tokens whose {@code unmask} grants cover a field)
 * @param onFailure        refuse (default) or drop
 */
public record MaskRule(String topics, List<FieldMaskConfig> fields, List<String> unmaskPrincipals, MaskFailure onFailure) {

    /** Masked fields per rule, at most. */
    static final int MAX_FIELDS = 64;

    public MaskRule {
        fields = fields == null ? List.of() : List.copyOf(fields);
        unmaskPrincipals = unmaskPrincipals == null ? List.of() : List.copyOf(unmaskPrincipals);
        onFailure = onFailure == null ? MaskFailure.REFUSE : onFailure;
    }

    /** Problems, each naming its field under {@code prefix}. */
    void validate(String prefix, List<String> problems) {
        if (topics == null || topics.isBlank()) {
            problems.add(prefix + ".topics: required (a topic name or a regular expression)");
        } else {
            checkPattern(topics, prefix + ".topics", problems);
        }
        if (fields.isEmpty()) {
            problems.add(prefix + ".fields: at least one field is required");
        } else if (fields.size() > MAX_FIELDS) {
            problems.add(prefix + ".fields: more than " + MAX_FIELDS + " fields");
        }
        Set<String> paths = new HashSet<>();
        for (int i = 0; i < fields.size() && i < MAX_FIELDS; i++) {
            FieldMaskConfig field = fields.get(i);
            String where = prefix + ".fields[" + i + "]";
            if (field == null) {
                problems.add(where + ": empty");
                continue;
            }
            field.validate(where, problems);
            if (field.path() != null && !paths.add(field.path())) {
                problems.add(where + ".path: " + field.path() + " is masked twice in this rule");
            }
        }
        for (int i = 0; i < unmaskPrincipals.size(); i++) {
            checkPattern(unmaskPrincipals.get(i), prefix + ".unmaskPrincipals[" + i + "]", problems);
        }
    }

    private static void checkPattern(String pattern, String where, List<String> problems) {
        if (pattern == null || pattern.isEmpty()) {
            problems.add(where + ": empty");
            return;
        }
        try {
            Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            problems.add(where + ": not a regular expression: " + e.getDescription());
        }
    }
}
