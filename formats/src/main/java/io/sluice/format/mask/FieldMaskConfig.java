package io.sluice.format.mask;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One field of a masking rule, as configured.
 *
 * @param path  a JSON Pointer into the record's decoded value (as the bridge's {@code fields}): {@code /card/number}
 * @param mask  what replaces the field
 * @param value {@code fixed}: the JSON value put in its place
 * @param chars {@code keepFirst} and {@code keepLast}: how many characters stay
 */
public record FieldMaskConfig(String path, MaskKind mask, JsonNode value, Integer chars) {

    /** JSON Pointers longer than this, or with more segments, are refused (values nest at most 64 deep anyway). */
    static final int MAX_PATH_CHARS = 256;
    static final int MAX_PATH_SEGMENTS = 32;
    /** A fixed value's JSON text, at most. */
    static final int MAX_FIXED_CHARS = 4096;
    static final int MAX_KEPT_CHARS = 1000;

    /** Problems, each naming its field under {@code prefix}. */
    void validate(String prefix, List<String> problems) {
        if (path == null || path.isEmpty()) {
            problems.add(prefix + ".path: required: a JSON Pointer such as /card/number (the whole value cannot be masked)");
        } else if (path.length() > MAX_PATH_CHARS) {
            problems.add(prefix + ".path: longer than " + MAX_PATH_CHARS + " characters");
        } else if (path.charAt(0) != '/') {
            problems.add(prefix + ".path: not a JSON Pointer: it must start with '/'");
        } else if (path.chars().filter(c -> c == '/').count() > MAX_PATH_SEGMENTS) {
            problems.add(prefix + ".path: more than " + MAX_PATH_SEGMENTS + " segments");
        } else {
            String bad = FieldPath.problem(path);
            if (bad != null) {
                problems.add(prefix + ".path: " + bad);
            }
        }
        if (mask == null) {
            problems.add(prefix + ".mask: required (null, fixed, hash, keepFirst, keepLast or remove)");
            return;
        }
        if (mask == MaskKind.FIXED) {
            if (value == null) {
                problems.add(prefix + ".value: required by mask fixed");
            } else if (value.toString().length() > MAX_FIXED_CHARS) {
                problems.add(prefix + ".value: longer than " + MAX_FIXED_CHARS + " characters as JSON");
            }
        } else if (value != null) {
            problems.add(prefix + ".value: only mask fixed takes a value");
        }
        boolean keeps = mask == MaskKind.KEEP_FIRST || mask == MaskKind.KEEP_LAST;
        if (keeps && (chars == null || chars < 0 || chars > MAX_KEPT_CHARS)) {
            problems.add(prefix + ".chars: mask " + mask.yamlName() + " needs chars, 0.." + MAX_KEPT_CHARS);
        } else if (!keeps && chars != null) {
            problems.add(prefix + ".chars: only masks keepFirst and keepLast take chars");
        }
    }
}
