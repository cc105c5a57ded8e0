package io.sluice.bridge.selection;

/**
 * A filter or field list that is refused. {@link #code()} is one of the stable protocol error codes below; the message
 * names the offending spot inside the filter ({@code filter.all[2].eq[0]: not a JSON Pointer}) and never echoes more
 * than a short excerpt of what the client sent.
 */
public class FilterException extends Exception {

    /** Not the language: wrong shape, unknown operator, wrong arity or operand type, not a JSON Pointer. */
    public static final String INVALID_FILTER = "invalid_filter";
    /** Over one of the {@link FilterLimits}. */
    public static final String FILTER_TOO_LARGE = "filter_too_large";

    private final String code;

    FilterException(String code, String message) {
        super(message);
        this.code = code;
    }

    static FilterException invalid(String path, String problem) {
        return new FilterException(INVALID_FILTER, path + ": " + problem);
    }

    static FilterException tooLarge(String path, String problem) {
        return new FilterException(FILTER_TOO_LARGE, path + ": " + problem);
    }

    public String code() {
        return code;
    }

    /** At most {@code max} characters of something a client wrote, for an error message. */
    static String excerpt(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }
}
