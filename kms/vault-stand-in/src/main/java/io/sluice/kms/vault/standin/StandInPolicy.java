package io.sluice.kms.vault.standin;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of Vault's ACL policy language the stand-in enforces: {@code path "glob" { capabilities = [...] }} with
 * exact paths, a trailing {@code *}, and {@code +} for one segment. Enough to check that the least-privilege policy in
 * docs/kms.md allows what the KMS does and no more.
 */
final class StandInPolicy {

    private static final Pattern RULE = Pattern.compile(
            "path\\s+\"([^\"]+)\"\\s*\\{\\s*capabilities\\s*=\\s*\\[([^\\]]*)\\]\\s*\\}", Pattern.MULTILINE);

    private record Rule(Pattern path, Set<String> capabilities) {
    }

    private final List<Rule> rules = new ArrayList<>();

    StandInPolicy(String hcl) {
        Matcher m = RULE.matcher(hcl);
        while (m.find()) {
            Set<String> capabilities = Set.of(m.group(2).replace("\"", "").replace(" ", "").split(","));
            rules.add(new Rule(glob(m.group(1)), capabilities));
        }
        if (rules.isEmpty() && !hcl.isBlank()) {
            throw new IllegalArgumentException("no path rules in policy");
        }
    }

    /** Vault's default policy, as far as the KMS needs it. */
    static StandInPolicy defaultPolicy() {
        return new StandInPolicy("""
                path "auth/token/lookup-self" { capabilities = ["read"] }
                path "auth/token/renew-self" { capabilities = ["update"] }
                """);
    }

    boolean allows(String path, String capability) {
        return rules.stream().anyMatch(r -> r.path.matcher(path).matches()
                && (r.capabilities.contains(capability) || capability.equals("create") && r.capabilities.contains("update")));
    }

    private static Pattern glob(String path) {
        StringBuilder regex = new StringBuilder();
        boolean prefix = path.endsWith("*");
        String body = prefix ? path.substring(0, path.length() - 1) : path;
        for (String part : body.split("\\+", -1)) {
            if (regex.length() > 0) {
                regex.append("[^/]+");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex + (prefix ? ".*" : ""));
    }
}
