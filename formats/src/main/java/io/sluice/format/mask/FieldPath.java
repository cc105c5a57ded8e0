package io.sluice.format.mask;

import com.fasterxml.jackson.core.JsonPointer;

/**
 * A mask's field: an RFC 6901 JSON Pointer, parsed by Jackson's {@link JsonPointer} (which the decoded values are
 * trees of), split into the parent's pointer and the last segment so that a mask replaces or removes the member in
 * place.
 */
record FieldPath(String text, JsonPointer parent, String member, int index) {

    static FieldPath parse(String text) {
        JsonPointer pointer = JsonPointer.compile(text);
        JsonPointer last = pointer.last();
        return new FieldPath(text, pointer.head(), last.getMatchingProperty(), last.getMatchingIndex());
    }

    /** Null when {@code text} is a JSON Pointer; else what is wrong with it. */
    static String problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '~' && (i + 1 == text.length() || (text.charAt(i + 1) != '0' && text.charAt(i + 1) != '1'))) {
                return "not a JSON Pointer: '~' must be followed by 0 or 1";
            }
        }
        try {
            JsonPointer.compile(text);
            return null;
        } catch (IllegalArgumentException e) {
            return "not a JSON Pointer: " + e.getMessage();
        }
    }
}
