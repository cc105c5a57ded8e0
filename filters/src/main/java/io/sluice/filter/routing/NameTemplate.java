package io.sluice.filter.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A topic name with {@code $(name)} placeholders, e.g. {@code scores.live.$(sport)}. A placeholder stands for
 * one or more of the characters Kafka allows in topic names except the dot ({@code [A-Za-z0-9_-]}), so it
 * fills part of one dot-separated segment: {@code scores.$(match)} names {@code scores.uefa-f35} but not
 * {@code scores.live.football}. The {@code $( )} form is RecordEncryption's, chosen because {@code ${...}} in
 * a YAML file is environment substitution.
 */
final class NameTemplate {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\(([A-Za-z][A-Za-z0-9_]*)\\)");
    private static final String VALUE = "[A-Za-z0-9_-]+";
    private static final Pattern LEGAL = Pattern.compile("[A-Za-z0-9._-]+");
    static final int MAX_TOPIC_NAME = 249;

    private final String source;
    private final List<String> names;
    private final Pattern regex;
    /** Per dot-separated segment: [literal before, literal after] its placeholder, or [the segment] without one. */
    private final List<String[]> segments;

    private NameTemplate(String source, List<String> names, Pattern regex, List<String[]> segments) {
        this.source = source;
        this.names = names;
        this.regex = regex;
        this.segments = segments;
    }

    /** @throws IllegalArgumentException (message without the field name) for an empty or illegal name */
    static NameTemplate parse(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("is required");
        }
        List<String> names = new ArrayList<>();
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(template);
        int at = 0;
        while (m.find()) {
            literal.append(template, at, m.start()).append('x');
            regex.append(Pattern.quote(template.substring(at, m.start()))).append('(').append(VALUE).append(')');
            if (names.contains(m.group(1))) {
                throw new IllegalArgumentException("'" + template + "' uses $(" + m.group(1) + ") twice");
            }
            names.add(m.group(1));
            at = m.end();
        }
        literal.append(template.substring(at));
        regex.append(Pattern.quote(template.substring(at)));
        String shape = literal.toString();
        if (shape.contains("$(")) {
            throw new IllegalArgumentException("'" + template + "' has a malformed placeholder (write $(name), name of letters, digits and _)");
        }
        if (!LEGAL.matcher(shape).matches() || shape.equals(".") || shape.equals("..") || template.length() > MAX_TOPIC_NAME) {
            throw new IllegalArgumentException("'" + template + "' is not a legal Kafka topic name (letters, digits, '.', '_', '-'; at most "
                    + MAX_TOPIC_NAME + " characters)");
        }
        List<String[]> segments = new ArrayList<>();
        for (String segment : template.split("\\.", -1)) {
            Matcher s = PLACEHOLDER.matcher(segment);
            if (!s.find()) {
                segments.add(new String[] { segment });
                continue;
            }
            int start = s.start();
            int end = s.end();
            if (s.find()) {
                throw new IllegalArgumentException("'" + template + "' has two placeholders in one dot-separated part");
            }
            segments.add(new String[] { segment.substring(0, start), segment.substring(end) });
        }
        return new NameTemplate(template, List.copyOf(names), Pattern.compile(regex.toString()), segments);
    }

    boolean isLiteral() {
        return names.isEmpty();
    }

    List<String> placeholders() {
        return names;
    }

    /** The placeholder values that make this template {@code name}, or empty when it does not fit. */
    Optional<Map<String, String>> match(String name) {
        if (isLiteral()) {
            return source.equals(name) ? Optional.of(Map.of()) : Optional.empty();
        }
        Matcher m = regex.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            values.put(names.get(i), m.group(i + 1));
        }
        return Optional.of(values);
    }

    /** The name with every placeholder replaced by its value (all must be given). */
    String expand(Map<String, String> values) {
        return expand(source, values);
    }

    static String expand(String text, Map<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(values.get(m.group(1))));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The placeholder names {@code text} uses. */
    static List<String> placeholdersIn(String text) {
        List<String> found = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /**
     * Whether some topic name fits both templates. Exact: a name fits a template segment by segment, and two
     * segments with a placeholder share a value when one's literal start begins the other's and one's end
     * ends the other's.
     */
    boolean overlaps(NameTemplate other) {
        if (isLiteral()) {
            return other.match(source).isPresent();
        }
        if (other.isLiteral()) {
            return match(other.source).isPresent();
        }
        if (segments.size() != other.segments.size()) {
            return false;
        }
        for (int i = 0; i < segments.size(); i++) {
            if (!segmentsOverlap(segments.get(i), other.segments.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean segmentsOverlap(String[] a, String[] b) {
        if (a.length == 1 && b.length == 1) {
            return a[0].equals(b[0]);
        }
        if (a.length == 1 || b.length == 1) {
            String literal = a.length == 1 ? a[0] : b[0];
            String[] open = a.length == 1 ? b : a;
            return literal.length() > open[0].length() + open[1].length() && literal.startsWith(open[0]) && literal.endsWith(open[1])
                    && literal.substring(open[0].length(), literal.length() - open[1].length()).matches(VALUE);
        }
        return (a[0].startsWith(b[0]) || b[0].startsWith(a[0])) && (a[1].endsWith(b[1]) || b[1].endsWith(a[1]));
    }

    @Override
    public String toString() {
        return source;
    }
}
