package io.sluice.proxy.config;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A TLS server name an SNI gateway answers to: a host name ({@code bootstrap.kafka.example.com}), or one in which
 * {@code $(nodeId)} stands for a broker's node id ({@code broker-$(nodeId).kafka.example.com}). Held in lower case,
 * because server names compare case-insensitively (RFC 6066) and Netty's SNI handler hands them over lower-cased.
 *
 * <p>A node id in a name is written in canonical decimal, as the proxy advertises it: {@code broker-01} is not node 1,
 * and ids above {@link Integer#MAX_VALUE} are no node at all, so that one broker has exactly one name.</p>
 *
 * @param prefix    the text before {@code $(nodeId)}, or the whole name when there is no placeholder
 * @param hasNodeId whether the name has the placeholder
 * @param suffix    the text after the placeholder; empty without one
 */
public record HostPattern(String prefix, boolean hasNodeId, String suffix) {

    public static final String NODE_ID_TOKEN = PortIdentifiesNodeConfig.NODE_ID_TOKEN;
    /** Longest DNS name (RFC 1035: 255 octets on the wire, 253 characters in text). */
    static final int MAX_HOST_LENGTH = 253;
    private static final int MAX_LABEL_LENGTH = 63;
    // The longest node id, for checking that every name the pattern can produce is a valid host name.
    private static final String LONGEST_NODE_ID = Integer.toString(Integer.MAX_VALUE);
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");
    private static final Pattern NUMERIC = Pattern.compile("[0-9]+");

    /**
     * @throws IllegalArgumentException saying what is wrong: a placeholder other than {@code $(nodeId)} or more than
     *         one, a name that is not a host name (labels of letters, digits and inner '-', at most 63 characters each,
     *         253 in all, no trailing dot), or an IPv4 address, which a server name never is (RFC 6066)
     */
    public static HostPattern parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("must not be empty");
        }
        String stripped = text.strip();
        int token = stripped.indexOf(NODE_ID_TOKEN);
        HostPattern pattern = token < 0 ? new HostPattern(stripped.toLowerCase(Locale.ROOT), false, "")
                : new HostPattern(stripped.substring(0, token).toLowerCase(Locale.ROOT), true,
                        stripped.substring(token + NODE_ID_TOKEN.length()).toLowerCase(Locale.ROOT));
        if (pattern.suffix.contains(NODE_ID_TOKEN.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("'" + text + "' has " + NODE_ID_TOKEN + " more than once");
        }
        if (pattern.prefix.contains("$(") || pattern.suffix.contains("$(")) {
            throw new IllegalArgumentException("'" + text + "': only the " + NODE_ID_TOKEN + " placeholder is supported");
        }
        String longest = pattern.host(LONGEST_NODE_ID);
        String problem = hostNameProblem(longest);
        if (problem != null) {
            throw new IllegalArgumentException("'" + text + "' " + problem);
        }
        return pattern;
    }

    private static String hostNameProblem(String host) {
        if (host.length() > MAX_HOST_LENGTH) {
            return "is longer than " + MAX_HOST_LENGTH + " characters" + (host.contains(LONGEST_NODE_ID) ? " for node id " + LONGEST_NODE_ID : "");
        }
        if (host.endsWith(".")) {
            return "ends with '.': server names are sent without the trailing dot";
        }
        String[] labels = host.split("\\.", -1);
        boolean numeric = true;
        for (String label : labels) {
            if (label.length() > MAX_LABEL_LENGTH) {
                return "has a label longer than " + MAX_LABEL_LENGTH + " characters";
            }
            if (!LABEL.matcher(label).matches()) {
                return "is not a host name (labels of letters, digits and '-' inside, separated by single dots)";
            }
            numeric &= NUMERIC.matcher(label).matches();
        }
        if (numeric) {
            return "is an IP address: TLS clients send no server name for an address (RFC 6066)";
        }
        return null;
    }

    /** The name of broker {@code nodeId}; the pattern's text when it has no placeholder. */
    public String host(int nodeId) {
        return host(Integer.toString(nodeId));
    }

    private String host(String nodeId) {
        return hasNodeId ? prefix + nodeId + suffix : prefix;
    }

    /** Whether a server name (lower case, as Netty gives it) is this pattern's name, for one without a placeholder. */
    public boolean matches(String serverName) {
        return !hasNodeId && prefix.equals(serverName);
    }

    /** The node id a server name stands for, or empty when it is not one of this pattern's names. */
    public OptionalInt nodeId(String serverName) {
        if (!hasNodeId || serverName == null || serverName.length() <= prefix.length() + suffix.length()
                || !serverName.startsWith(prefix) || !serverName.endsWith(suffix)) {
            return OptionalInt.empty();
        }
        String digits = serverName.substring(prefix.length(), serverName.length() - suffix.length());
        if (digits.length() > LONGEST_NODE_ID.length() || !NUMERIC.matcher(digits).matches()
                || digits.length() > 1 && digits.charAt(0) == '0') {
            return OptionalInt.empty();
        }
        long id = Long.parseLong(digits);
        return id > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) id);
    }

    /**
     * Whether some server name is a name of both patterns, so that a listener shared by the two could not tell whom a
     * client means. Exact: searches the pair of patterns for a common name, each pattern read as its literal text with
     * one run of digits for the placeholder. (The canonical-decimal rule of {@link #nodeId} is ignored, which can only
     * report an overlap that a leading zero would have avoided, never miss one.)
     */
    public boolean overlaps(HostPattern other) {
        Token[] a = tokens();
        Token[] b = other.tokens();
        ArrayDeque<long[]> queue = new ArrayDeque<>();
        Set<Long> seen = new HashSet<>();
        visit(queue, seen, 0, 0);
        while (!queue.isEmpty()) {
            long[] pair = queue.poll();
            int sa = (int) pair[0];
            int sb = (int) pair[1];
            if (accepts(a, sa) && accepts(b, sb)) {
                return true;
            }
            Set<Character> candidates = new HashSet<>();
            candidates.add('0');
            expected(a, sa, candidates);
            expected(b, sb, candidates);
            for (char c : candidates) {
                for (int na : step(a, sa, c)) {
                    for (int nb : step(b, sb, c)) {
                        visit(queue, seen, na, nb);
                    }
                }
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return hasNodeId ? prefix + NODE_ID_TOKEN + suffix : prefix;
    }

    // The search's alphabet: a literal character, or one of the placeholder's digits (one or more).
    private record Token(char literal, boolean digits) {
    }

    private Token[] tokens() {
        String all = prefix + (hasNodeId ? "\0" : "") + suffix;
        Token[] tokens = new Token[all.length()];
        for (int i = 0; i < all.length(); i++) {
            tokens[i] = all.charAt(i) == '\0' ? new Token('0', true) : new Token(all.charAt(i), false);
        }
        return tokens;
    }

    // A state is 2 * token index + 1 when at least one digit of the placeholder at that index has been read.
    private static boolean accepts(Token[] tokens, int state) {
        int index = state >> 1;
        return index == tokens.length || (state & 1) == 1 && index == tokens.length - 1;
    }

    private static void expected(Token[] tokens, int state, Set<Character> into) {
        int index = state >> 1;
        if (index < tokens.length && !tokens[index].digits) {
            into.add(tokens[index].literal);
        }
        if ((state & 1) == 1 && index + 1 < tokens.length && !tokens[index + 1].digits) {
            into.add(tokens[index + 1].literal);
        }
    }

    private static int[] step(Token[] tokens, int state, char c) {
        int index = state >> 1;
        int[] next = new int[2];
        int count = 0;
        if (index < tokens.length) {
            Token token = tokens[index];
            if (token.digits && isDigit(c)) {
                next[count++] = index << 1 | 1;
            } else if (!token.digits && token.literal == c) {
                next[count++] = (index + 1) << 1;
            }
        }
        // After a digit the placeholder may end: what follows it reads c.
        if ((state & 1) == 1 && index + 1 < tokens.length) {
            Token following = tokens[index + 1];
            if (!following.digits && following.literal == c) {
                next[count++] = (index + 2) << 1;
            }
        }
        return Arrays.copyOf(next, count);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static void visit(ArrayDeque<long[]> queue, Set<Long> seen, int a, int b) {
        if (seen.add((long) a << 32 | b)) {
            queue.add(new long[] {a, b});
        }
    }
}
