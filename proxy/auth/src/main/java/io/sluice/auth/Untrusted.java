package io.sluice.auth;

/**
 * Makes text that came from a client (token headers and claims, SASL fields, names in requests) safe to put in
 * a log line or an error message: control and line-separator characters are replaced by their {@code \\uXXXX}
 * escape, so one value cannot forge extra log lines, and the result is bounded in length, so one value cannot
 * flood the log.
 */
public final class Untrusted {

    /** Longest text kept from one value; the rest is replaced by a note of how much was cut. */
    public static final int MAX_CHARS = 200;
    /** Longest text kept from a whole message that quotes a few such values (a token's rejection, say). */
    public static final int MAX_MESSAGE_CHARS = 600;

    private Untrusted() {
    }

    /** {@code value} escaped and cut to {@link #MAX_CHARS}; {@code "null"} for null. */
    public static String text(Object value) {
        return text(value, MAX_CHARS);
    }

    /** {@code value} escaped and cut to {@code maxChars} characters of input. */
    public static String text(Object value, int maxChars) {
        String s = String.valueOf(value);
        int end = Math.min(s.length(), maxChars);
        StringBuilder out = null;
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if (unsafe(c)) {
                if (out == null) {
                    out = new StringBuilder(end + 16).append(s, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        if (out == null && end == s.length()) {
            return s;
        }
        if (out == null) {
            out = new StringBuilder(end + 32).append(s, 0, end);
        }
        if (end < s.length()) {
            out.append("...(").append(s.length() - end).append(" more chars)");
        }
        return out.toString();
    }

    /** Whether the text holds a character that {@link #text} would escape. */
    public static boolean hasControlCharacters(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (unsafe(value.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean unsafe(char c) {
        // ISO controls (CR, LF, ESC, DEL, C1), the Unicode line and paragraph separators, and bidi overrides
        // that make a log line read differently from what it holds.
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069');
    }
}
