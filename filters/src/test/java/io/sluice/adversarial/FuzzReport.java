package io.sluice.adversarial;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts what happened per API and keeps one reproducer per distinct finding (the same API, mutation operator and
 * outcome counts as one finding, with how often it happened).
 */
final class FuzzReport {

    /** A failure with what is needed to replay it: the seed and index regenerate the bytes, which are also shown. */
    record Finding(String seedName, String cluster, WireProbe.Mode mode, Mutation mutation, WireProbe.Result result, long seed, long index) {

        String key() {
            return seedName + " / " + mutation.kind() + " / " + result.outcome();
        }

        String reproducer() {
            return "%s to the %s cluster over a %s connection: %s -> %s (%s)%n  reproduce: -Dsluice.fuzz.seed=%d -Dsluice.fuzz.only=%d%n  frame (hex): %s".formatted(
                    seedName, cluster, mode, mutation.description(), result.outcome(), result.detail(), seed, index, mutation.hex());
        }
    }

    private final Map<String, EnumMap<WireProbe.Outcome, Integer>> perApi = new TreeMap<>();
    private final Map<String, Finding> findings = new LinkedHashMap<>();
    private final Map<String, Integer> findingCounts = new LinkedHashMap<>();
    private final List<String> healthFailures = new ArrayList<>();
    private int sent;

    void record(String seedName, String cluster, WireProbe.Mode mode, Mutation mutation, WireProbe.Result result, long seed, long index) {
        sent++;
        perApi.computeIfAbsent(seedName, k -> new EnumMap<>(WireProbe.Outcome.class)).merge(result.outcome(), 1, Integer::sum);
        if (result.outcome().failure) {
            Finding finding = new Finding(seedName, cluster, mode, mutation, result, seed, index);
            if (findings.putIfAbsent(finding.key(), finding) == null) {
                System.out.println("FUZZ FINDING " + finding.reproducer());
            }
            findingCounts.merge(finding.key(), 1, Integer::sum);
        }
    }

    void healthFailure(long afterMutations, String problem) {
        String line = "after " + afterMutations + " mutations: " + problem;
        healthFailures.add(line);
        System.out.println("FUZZ HEALTH FAILURE " + line);
    }

    int sent() {
        return sent;
    }

    int count(WireProbe.Outcome outcome) {
        return perApi.values().stream().mapToInt(m -> m.getOrDefault(outcome, 0)).sum();
    }

    List<Finding> findings() {
        return List.copyOf(findings.values());
    }

    List<String> healthFailures() {
        return List.copyOf(healthFailures);
    }

    String summary() {
        StringBuilder out = new StringBuilder();
        out.append("%d mutations sent: %d answered, %d closed, %d acks=0 (no answer due), %d held by the broker, %d failures%n".formatted(sent,
                count(WireProbe.Outcome.ANSWERED), count(WireProbe.Outcome.CLOSED), count(WireProbe.Outcome.NO_RESPONSE_EXPECTED),
                count(WireProbe.Outcome.HELD_BY_BROKER), perApi.values().stream().flatMap(m -> m.entrySet().stream())
                        .filter(e -> e.getKey().failure).mapToInt(Map.Entry::getValue).sum()));
        perApi.forEach((api, outcomes) -> out.append("  %-45s %s%n".formatted(api, outcomes)));
        if (!findings.isEmpty()) {
            out.append("%d distinct findings:%n".formatted(findings.size()));
            findings.forEach((key, f) -> out.append("- [%dx] %s%n".formatted(findingCounts.get(key), f.reproducer())));
        }
        healthFailures.forEach(h -> out.append("health: ").append(h).append('\n'));
        return out.toString();
    }
}
