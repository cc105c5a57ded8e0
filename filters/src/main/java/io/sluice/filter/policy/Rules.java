package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.sluice.auth.NamePattern;
import io.sluice.proxy.filter.AuthenticatedPrincipal;

/**
 * The rules of one filter definition, in order, and which applies to a connection: the first whose principals match
 * (first match, as firewall rules: a tenant's rule before the catch-all, and what applies to a principal is read off
 * one rule). {@link #compile} checks the config, every problem naming its field as {@code rules[i].<field>}.
 */
final class Rules {

    private final List<Rule> rules;

    private Rules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** The rule for a connection of {@code principal} (empty before or without authentication), if any. */
    Optional<Rule> forPrincipal(Optional<AuthenticatedPrincipal> principal) {
        for (Rule rule : rules) {
            if (rule.appliesTo(principal)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    /** Whether any rule polices Produce: if none does, the filter does not ask for Produce requests at all. */
    boolean policeProduce() {
        return rules.stream().anyMatch(r -> r.produce() != null);
    }

    /** Whether any rule polices topics. */
    boolean policeTopics() {
        return rules.stream().anyMatch(r -> r.topics() != null);
    }

    /** @throws IllegalArgumentException naming the first bad field, e.g. {@code rules[1].produce.requiredAcks: ...} */
    static Rules compile(PoliciesConfig config) {
        if (config == null || config.rules() == null || config.rules().isEmpty()) {
            throw new IllegalArgumentException("rules: at least one rule is required");
        }
        List<Rule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < config.rules().size(); i++) {
            String path = "rules[" + i + "]";
            PoliciesConfig.RuleConfig rule = config.rules().get(i);
            if (rule.name() == null || rule.name().isBlank()) {
                throw new IllegalArgumentException(path + ".name: is required (it names the rule in refusals, logs and metrics)");
            }
            if (!names.add(rule.name())) {
                throw new IllegalArgumentException(path + ".name: '" + rule.name() + "' names an earlier rule too");
            }
            List<NamePattern> principals = new ArrayList<>();
            if (rule.principals() != null) {
                if (rule.principals().isEmpty()) {
                    throw new IllegalArgumentException(path + ".principals: must name at least one pattern, or be left out to apply to every connection");
                }
                for (int p = 0; p < rule.principals().size(); p++) {
                    principals.add(ConfigFields.pattern(rule.principals().get(p), path + ".principals[" + p + "]"));
                }
            }
            // A rule without policies is allowed: it exempts its principals from the rules after it (platform operators, say).
            ProducePolicy produce = rule.produce() == null ? null : ProducePolicy.compile(rule.produce(), path + ".produce");
            TopicPolicy topics = rule.topics() == null ? null : TopicPolicy.compile(rule.topics(), path + ".topics");
            Map<PolicyId, PolicyMode> modes = new EnumMap<>(PolicyId.class);
            if (rule.modes() != null) {
                for (Map.Entry<String, PolicyMode> entry : rule.modes().entrySet()) {
                    String where = path + ".modes." + entry.getKey();
                    PolicyId policy = PolicyId.of(entry.getKey()).orElseThrow(() -> new IllegalArgumentException(where
                            + ": not a policy (expected one of " + String.join(", ", java.util.Arrays.stream(PolicyId.values()).map(PolicyId::id).toList()) + ")"));
                    boolean configured = produce != null && produce.policies().contains(policy) || topics != null && topics.policies().contains(policy);
                    if (!configured) {
                        throw new IllegalArgumentException(where + ": the rule does not set " + policy.id());
                    }
                    if (entry.getValue() == null) {
                        throw new IllegalArgumentException(where + ": expected enforce or warn");
                    }
                    modes.put(policy, entry.getValue());
                }
            }
            rules.add(new Rule(rule.name(), principals, rule.mode() == null ? PolicyMode.ENFORCE : rule.mode(), modes, produce, topics));
        }
        return new Rules(rules);
    }
}
