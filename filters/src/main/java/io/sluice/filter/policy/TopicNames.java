package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.auth.NamePattern;
import io.sluice.auth.Untrusted;
import io.sluice.proxy.filter.AuthenticatedPrincipal;

/**
 * A rule's {@code topics.names}: topic name patterns, each of which may hold {@code $(principal)}, the connection's
 * principal name taken literally (a {@code *} in a principal name matches only a {@code *}). So one rule gives every
 * tenant its own prefix: {@code $(principal).*}. Immutable; {@link #bind} makes the patterns of one principal, which
 * a connection keeps while its principal stays the same.
 */
final class TopicNames {

    static final String PRINCIPAL = "$(principal)";

    private final List<String> templates;

    private TopicNames(List<String> templates) {
        this.templates = List.copyOf(templates);
    }

    static TopicNames compile(List<String> patterns, String path) {
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException(path + ": must name at least one pattern, or be left out to allow every name");
        }
        for (int i = 0; i < patterns.size(); i++) {
            String pattern = patterns.get(i);
            String where = path + "[" + i + "]";
            if (pattern == null || pattern.isEmpty()) {
                throw new IllegalArgumentException(where + ": must not be empty");
            }
            String rest = pattern.replace(PRINCIPAL, "");
            if (rest.contains("$(")) {
                throw new IllegalArgumentException(where + ": '" + pattern + "' uses a placeholder other than " + PRINCIPAL);
            }
            ConfigFields.pattern(pattern.replace(PRINCIPAL, "p"), where);
        }
        return new TopicNames(patterns);
    }

    /** The patterns for {@code principal}; those with {@code $(principal)} match nothing on an unauthenticated connection. */
    Bound bind(Optional<AuthenticatedPrincipal> principal) {
        List<NamePattern> patterns = new ArrayList<>();
        List<String> shown = new ArrayList<>();
        for (String template : templates) {
            if (!template.contains(PRINCIPAL)) {
                patterns.add(NamePattern.compile(template));
                shown.add(template);
            } else if (principal.isPresent()) {
                String literal = escape(principal.get().name());
                patterns.add(NamePattern.compile(template.replace(PRINCIPAL, literal)));
                shown.add(template.replace(PRINCIPAL, principal.get().name()));
            }
        }
        return new Bound(patterns, Untrusted.text(String.join(", ", shown)));
    }

    private static String escape(String name) {
        StringBuilder out = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '*' || c == '?' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    /** The patterns of one principal. */
    static final class Bound {

        private final List<NamePattern> patterns;
        private final String shown;

        private Bound(List<NamePattern> patterns, String shown) {
            this.patterns = patterns;
            this.shown = shown;
        }

        boolean matches(String topic) {
            for (NamePattern p : patterns) {
                if (p.matches(topic)) {
                    return true;
                }
            }
            return false;
        }

        /** The patterns as the principal sees them, for messages. */
        String shown() {
            return shown.isEmpty() ? "(none for an unauthenticated connection)" : shown;
        }
    }
}
