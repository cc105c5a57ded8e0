package io.sluice.filter.policy;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.auth.NamePattern;
import io.sluice.proxy.filter.AuthenticatedPrincipal;

/**
 * One rule of the config, compiled: whom it applies to, the mode of each of its policies, and its policies on
 * Produce ({@link ProducePolicy}) and on topics ({@link TopicPolicy}), either of which may be absent. Immutable.
 */
final class Rule {

    private final String name;
    private final List<NamePattern> principals;
    private final PolicyMode mode;
    private final Map<PolicyId, PolicyMode> modes;
    private final ProducePolicy produce;
    private final TopicPolicy topics;

    /** @param principals empty: every connection, unauthenticated ones included */
    Rule(String name, List<NamePattern> principals, PolicyMode mode, Map<PolicyId, PolicyMode> modes, ProducePolicy produce, TopicPolicy topics) {
        this.name = name;
        this.principals = List.copyOf(principals);
        this.mode = mode;
        this.modes = modes.isEmpty() ? Map.of() : new EnumMap<>(modes);
        this.produce = produce;
        this.topics = topics;
    }

    String name() {
        return name;
    }

    /** Whether the rule applies to a connection of {@code principal}; a rule naming principals never applies to an unauthenticated one. */
    boolean appliesTo(Optional<AuthenticatedPrincipal> principal) {
        if (principals.isEmpty()) {
            return true;
        }
        if (principal.isEmpty()) {
            return false;
        }
        String who = principal.get().name();
        for (NamePattern p : principals) {
            if (p.matches(who)) {
                return true;
            }
        }
        return false;
    }

    PolicyMode mode(PolicyId policy) {
        return modes.getOrDefault(policy, mode);
    }

    /** Null when the rule has no Produce policy. */
    ProducePolicy produce() {
        return produce;
    }

    /** Null when the rule has no topic policy. */
    TopicPolicy topics() {
        return topics;
    }
}
