package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.protocol.Errors;

import io.sluice.filter.records.ProduceRefusal;

/**
 * What the policies of one rule found about one thing (a Produce request's acks, a partition's records, a topic to
 * create, a config resource to change): the first violation of an enforced policy, which refuses it, and the
 * violations of policies in warn mode, each at most once. Checks stop at the first refusal ({@link #violated} says
 * so), so a refused thing costs no more reading than it took to refuse it.
 */
final class Judgement {

    private final Rule rule;
    private Violation refusal;
    private List<Violation> warnings;
    private Set<PolicyId> warned;

    Judgement(Rule rule) {
        this.rule = rule;
    }

    /**
     * Records that {@code policy} is broken.
     *
     * @param detail what is wrong, for the client; quotes client-supplied names only through {@link io.sluice.auth.Untrusted}
     * @return whether the thing is now refused: checking it further is pointless
     */
    boolean violated(PolicyId policy, Errors error, String detail) {
        return add(policy, error, detail, -1);
    }

    /** As {@link #violated}, by the record at {@code index} among the partition's records (named in {@code record_errors}). */
    boolean violatedBy(int index, PolicyId policy, Errors error, String detail) {
        return add(policy, error, "record " + index + " " + detail, index);
    }

    private boolean add(PolicyId policy, Errors error, String detail, int index) {
        if (refusal != null) {
            return true;
        }
        PolicyMode mode = rule.mode(policy);
        if (mode == PolicyMode.WARN) {
            if (warned == null) {
                warned = EnumSet.noneOf(PolicyId.class);
                warnings = new ArrayList<>(2);
            }
            if (warned.add(policy)) {
                warnings.add(violation(policy, mode, error, detail, index));
            }
            return false;
        }
        refusal = violation(policy, mode, error, detail, index);
        return true;
    }

    private Violation violation(PolicyId policy, PolicyMode mode, Errors error, String detail, int index) {
        String message = "policy " + policy.id() + " (rule " + rule.name() + "): " + detail;
        return new Violation(policy, mode, error, message, index < 0 ? null : new ProduceRefusal.RecordError(index, message));
    }

    /** Whether an enforced policy refuses it. */
    boolean refused() {
        return refusal != null;
    }

    /** The violation that refuses, or null. */
    Violation refusal() {
        return refusal;
    }

    /** What to report: the refusal (if any) and the warnings. */
    List<Violation> violations() {
        if (refusal == null && warnings == null) {
            return List.of();
        }
        List<Violation> all = new ArrayList<>(warnings == null ? 1 : warnings.size() + 1);
        if (refusal != null) {
            all.add(refusal);
        }
        if (warnings != null) {
            all.addAll(warnings);
        }
        return all;
    }

    Rule rule() {
        return rule;
    }
}
