package io.sluice.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A pattern for topic names, group ids, transactional ids and record keys: {@code *} matches any run of
 * characters (including none), {@code ?} exactly one character, {@code \} makes the next character literal.
 * A pattern without wildcards is a literal name, one whose only wildcard is a trailing {@code *} is a
 * prefix ({@code orders.*}), anything else is a glob.
 *
 * <p>Matching works on UTF-8 bytes so record keys need not be text; a name is matched through its UTF-8
 * encoding, and a null key as the empty key.</p>
 */
public final class NamePattern {

    private static final int STAR = -1;
    private static final int ONE = -2;

    private final String source;
    /** Literal bytes (0..255), STAR or ONE. */
    private final int[] tokens;
    private final Kind kind;

    private enum Kind { ANY, LITERAL, PREFIX, GLOB }

    private NamePattern(String source, int[] tokens) {
        this.source = source;
        this.tokens = tokens;
        this.kind = kindOf(tokens);
    }

    /** @throws IllegalArgumentException for an empty pattern or a trailing lone backslash */
    public static NamePattern compile(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            throw new IllegalArgumentException("a pattern must not be empty");
        }
        byte[] utf8 = pattern.getBytes(StandardCharsets.UTF_8);
        int[] tokens = new int[utf8.length];
        int n = 0;
        for (int i = 0; i < utf8.length; i++) {
            byte b = utf8[i];
            if (b == '\\') {
                if (++i == utf8.length) {
                    throw new IllegalArgumentException("pattern '" + pattern + "' ends with a lone backslash");
                }
                tokens[n++] = utf8[i] & 0xff;
            } else if (b == '*') {
                if (n == 0 || tokens[n - 1] != STAR) {
                    tokens[n++] = STAR;
                }
            } else if (b == '?') {
                tokens[n++] = ONE;
            } else {
                tokens[n++] = b & 0xff;
            }
        }
        return new NamePattern(pattern, Arrays.copyOf(tokens, n));
    }

    private static Kind kindOf(int[] tokens) {
        if (tokens.length == 1 && tokens[0] == STAR) {
            return Kind.ANY;
        }
        int wildcards = 0;
        for (int t : tokens) {
            if (t < 0) {
                wildcards++;
            }
        }
        if (wildcards == 0) {
            return Kind.LITERAL;
        }
        return wildcards == 1 && tokens[tokens.length - 1] == STAR ? Kind.PREFIX : Kind.GLOB;
    }

    /** Whether the pattern is {@code *}: callers can skip looking at names or keys at all. */
    public boolean matchesEverything() {
        return kind == Kind.ANY;
    }

    public boolean matches(String name) {
        if (kind == Kind.ANY) {
            return true;
        }
        return matches(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)));
    }

    /** Matches the remaining bytes of {@code key} (position untouched); null is the empty key. */
    public boolean matches(ByteBuffer key) {
        if (kind == Kind.ANY) {
            return true;
        }
        ByteBuffer k = key == null ? ByteBuffer.allocate(0) : key;
        int start = k.position();
        int length = k.remaining();
        return switch (kind) {
            case LITERAL -> length == tokens.length && literalAt(k, start, tokens.length);
            case PREFIX -> length >= tokens.length - 1 && literalAt(k, start, tokens.length - 1);
            default -> glob(k, start, length);
        };
    }

    /**
     * Whether this pattern matches every name that starts with {@code prefix} (the prefix itself included). Exact for
     * {@code *}, literals and prefix patterns; for other globs it answers yes only when the glob ends in {@code *} and
     * its part before that star matches some start of {@code prefix}, which is sufficient but not necessary, so an
     * unusual glob may be refused a prefix it would in fact cover. Refusing is the safe side for permissions.
     */
    public boolean coversPrefix(String prefix) {
        byte[] utf8 = prefix.getBytes(StandardCharsets.UTF_8);
        return switch (kind) {
            case ANY -> true;
            // A literal matches one name; a prefix always stands for infinitely many.
            case LITERAL -> false;
            case PREFIX -> utf8.length >= tokens.length - 1 && literalAt(ByteBuffer.wrap(utf8), 0, tokens.length - 1);
            default -> tokens[tokens.length - 1] == STAR && headMatchesAStartOf(utf8);
        };
    }

    private boolean headMatchesAStartOf(byte[] utf8) {
        NamePattern head = new NamePattern(source, Arrays.copyOf(tokens, tokens.length - 1));
        for (int end = 0; end <= utf8.length; end++) {
            if (head.matches(ByteBuffer.wrap(utf8, 0, end).slice())) {
                return true;
            }
        }
        return false;
    }

    private boolean literalAt(ByteBuffer key, int start, int count) {
        for (int i = 0; i < count; i++) {
            if ((key.get(start + i) & 0xff) != tokens[i]) {
                return false;
            }
        }
        return true;
    }

    /** Greedy glob with one backtrack point: linear in practice, O(pattern × key) at worst. */
    private boolean glob(ByteBuffer key, int start, int length) {
        int p = 0;
        int s = 0;
        int starP = -1;
        int starS = -1;
        while (s < length) {
            int t = p < tokens.length ? tokens[p] : Integer.MIN_VALUE;
            if (t == ONE) {
                s += Math.min(utf8Length(key.get(start + s)), length - s);
                p++;
            } else if (t >= 0 && t == (key.get(start + s) & 0xff)) {
                s++;
                p++;
            } else if (t == STAR) {
                starP = p++;
                starS = s;
            } else if (starP >= 0) {
                p = starP + 1;
                s = ++starS;
            } else {
                return false;
            }
        }
        while (p < tokens.length && tokens[p] == STAR) {
            p++;
        }
        return p == tokens.length;
    }

    /** Bytes in the UTF-8 character that starts with {@code lead}; 1 for anything that is not a lead byte. */
    private static int utf8Length(byte lead) {
        int b = lead & 0xff;
        if (b >= 0xf0 && b < 0xf8) {
            return 4;
        }
        if (b >= 0xe0) {
            return b < 0xf0 ? 3 : 1;
        }
        return b >= 0xc0 ? 2 : 1;
    }

    @Override
    public String toString() {
        return source;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NamePattern other && other.source.equals(source);
    }

    @Override
    public int hashCode() {
        return source.hashCode();
    }
}
