package io.sluice.auth;

import java.text.ParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * Reads the permissions claim. Strict on purpose: a misspelt field or operation would otherwise grant less
 * than the issuer meant without anyone noticing, so it fails authentication with a message naming the spot.
 *
 * <pre>
 * {"admin": false,
 *  "topics": {"orders.*": ["read", "write"], "audit": ["describe"]},
 *  "keys":   {"scores": {"read": ["live/*"], "write": ["live/team-a/*"]}},
 *  "groups": ["app-*"],
 *  "transactionalIds": ["app-*"],
 *  "filters": {"orders.*": {"eq": ["/value/branch", 17]}},
 *  "quotas": {"produceBytesPerSecond": 1048576, "fetchBytesPerSecond": 2097152, "requestsPerSecond": 200},
 *  "unmask": ["payments.*:/card/number", "audit:*"]}
 * </pre>
 *
 * <p>{@code filters} (row filters for the WebSocket bridge) are checked here only for shape: a topic pattern and a JSON
 * object each, at most {@link #MAX_ROW_FILTERS}; the bridge compiles them with its filter limits. {@code quotas} are
 * positive whole numbers; the Quotas filter applies them where they are lower than its configuration's. {@code unmask}
 * grants show fields that FieldMasking and the bridge's masks hide (docs/masking.md): at most {@link #MAX_UNMASK}, each
 * a topic pattern, a colon and a JSON Pointer or {@code *}.
 */
final class PermissionsClaim {

    private static final Set<String> FIELDS = Set.of("admin", "topics", "keys", "groups", "transactionalIds", "filters", "quotas", "unmask");
    private static final Set<String> QUOTA_FIELDS = Set.of("produceBytesPerSecond", "fetchBytesPerSecond", "requestsPerSecond");
    /** Above this a JSON number may not be a whole number exactly (2^53); no rate is anywhere near it. */
    private static final double MAX_EXACT_WHOLE = 9.007199254740992E15;
    /** Row filters one token may carry. */
    static final int MAX_ROW_FILTERS = 32;
    /** Unmask grants one token may carry, and the length of each: checked before any is compiled. */
    static final int MAX_UNMASK = 64;
    static final int MAX_UNMASK_CHARS = 512;
    private static final Set<String> KEY_FIELDS = Set.of("read", "write");

    private PermissionsClaim() {
    }

    static Permissions parse(Object claim) {
        if (claim == null) {
            return Permissions.none();
        }
        Map<String, Object> object = asObject(claim instanceof String text ? parseJson(text) : claim, "");
        for (String field : object.keySet()) {
            if (!FIELDS.contains(field)) {
                throw new IllegalArgumentException("unknown field '" + field + "' (expected " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
            }
        }
        boolean admin = false;
        if (object.get("admin") != null) {
            if (!(object.get("admin") instanceof Boolean b)) {
                throw new IllegalArgumentException("admin: expected true or false");
            }
            admin = b;
        }
        return new Permissions(admin, topicRules(object.get("topics")), keyRules(object.get("keys")),
                patterns(object.get("groups"), "groups"), patterns(object.get("transactionalIds"), "transactionalIds"),
                rowFilters(object.get("filters")), false, quotas(object.get("quotas")), unmask(object.get("unmask")));
    }

    private static List<Permissions.Unmask> unmask(Object value) {
        if (value instanceof List<?> list && list.size() > MAX_UNMASK) {
            throw new IllegalArgumentException("unmask: more than " + MAX_UNMASK + " grants");
        }
        List<Permissions.Unmask> grants = new ArrayList<>();
        List<String> texts = strings(value, "unmask");
        for (int i = 0; i < texts.size(); i++) {
            grants.add(unmaskGrant(texts.get(i), "unmask[" + i + "]"));
        }
        return grants;
    }

    /** One grant, {@code "<topic pattern>:<JSON Pointer>"} or {@code "<topic pattern>:*"}. */
    static Permissions.Unmask unmaskGrant(String grant, String path) {
        if (grant.length() > MAX_UNMASK_CHARS) {
            throw new IllegalArgumentException(path + ": longer than " + MAX_UNMASK_CHARS + " characters");
        }
        // The pointer starts at the first ":/" or is the final ":*": a topic name never holds '/', but may hold ':'.
        int at = grant.indexOf(":/");
        String topic;
        String pointer;
        if (at >= 0) {
            topic = grant.substring(0, at);
            pointer = grant.substring(at + 1);
        } else if (grant.endsWith(":*")) {
            topic = grant.substring(0, grant.length() - 2);
            pointer = null;
        } else {
            throw new IllegalArgumentException(path + ": expected '<topic pattern>:<JSON Pointer>' or '<topic pattern>:*', such as 'orders:/card/number'");
        }
        if (pointer != null && pointer.endsWith("/")) {
            throw new IllegalArgumentException(path + ": the JSON Pointer must not end with '/'");
        }
        return new Permissions.Unmask(grant, pattern(topic, path), pointer);
    }

    private static QuotaLimits quotas(Object value) {
        if (value == null) {
            return QuotaLimits.NONE;
        }
        if (!(value instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("quotas: expected a JSON object");
        }
        Map<String, Object> fields = asObject(value, "quotas");
        for (String field : fields.keySet()) {
            if (!QUOTA_FIELDS.contains(field)) {
                throw new IllegalArgumentException("quotas: unknown field '" + field + "' (expected " + String.join(", ", QUOTA_FIELDS.stream().sorted().toList()) + ")");
            }
        }
        return new QuotaLimits(rate(fields.get("produceBytesPerSecond"), "quotas.produceBytesPerSecond"),
                rate(fields.get("fetchBytesPerSecond"), "quotas.fetchBytesPerSecond"), rate(fields.get("requestsPerSecond"), "quotas.requestsPerSecond"));
    }

    private static Long rate(Object value, String path) {
        if (value == null) {
            return null;
        }
        long whole;
        if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            whole = ((Number) value).longValue();
        } else if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()) && Math.abs(n.doubleValue()) <= MAX_EXACT_WHOLE) {
            whole = (long) n.doubleValue();
        } else {
            throw new IllegalArgumentException(path + ": expected a whole number");
        }
        if (whole <= 0) {
            throw new IllegalArgumentException(path + ": must be a positive number, not " + whole);
        }
        return whole;
    }

    private static List<Permissions.RowFilter> rowFilters(Object value) {
        Map<String, Object> byTopic = asObject(value, "filters");
        if (byTopic.size() > MAX_ROW_FILTERS) {
            throw new IllegalArgumentException("filters: more than " + MAX_ROW_FILTERS + " topic patterns");
        }
        List<Permissions.RowFilter> filters = new ArrayList<>();
        for (Map.Entry<String, Object> e : byTopic.entrySet()) {
            String path = "filters." + e.getKey();
            if (!(e.getValue() instanceof Map<?, ?>)) {
                throw new IllegalArgumentException(path + ": expected a filter (a JSON object)");
            }
            filters.add(new Permissions.RowFilter(e.getKey(), pattern(e.getKey(), path), asObject(e.getValue(), path)));
        }
        return filters;
    }

    private static Object parseJson(String text) {
        try {
            return JSONObjectUtils.parse(text);
        } catch (ParseException e) {
            throw new IllegalArgumentException("a string claim must hold a JSON object: " + e.getMessage());
        }
    }

    private static List<Permissions.TopicRule> topicRules(Object value) {
        List<Permissions.TopicRule> rules = new ArrayList<>();
        for (Map.Entry<String, Object> e : asObject(value, "topics").entrySet()) {
            String path = "topics." + e.getKey();
            EnumSet<Permissions.Operation> operations = EnumSet.noneOf(Permissions.Operation.class);
            for (String op : strings(e.getValue(), path)) {
                operations.add(operation(op, path));
            }
            if (!operations.isEmpty()) {
                rules.add(new Permissions.TopicRule(pattern(e.getKey(), path), Set.copyOf(operations)));
            }
        }
        return rules;
    }

    private static Permissions.Operation operation(String op, String path) {
        return switch (op.toLowerCase(Locale.ROOT)) {
            case "read" -> Permissions.Operation.READ;
            case "write" -> Permissions.Operation.WRITE;
            case "describe" -> Permissions.Operation.DESCRIBE;
            default -> throw new IllegalArgumentException(path + ": unknown operation '" + op + "' (expected read, write or describe)");
        };
    }

    private static List<Permissions.KeyRule> keyRules(Object value) {
        List<Permissions.KeyRule> rules = new ArrayList<>();
        for (Map.Entry<String, Object> e : asObject(value, "keys").entrySet()) {
            String path = "keys." + e.getKey();
            Map<String, Object> byOperation = asObject(e.getValue(), path);
            for (String field : byOperation.keySet()) {
                if (!KEY_FIELDS.contains(field)) {
                    throw new IllegalArgumentException(path + ": unknown field '" + field + "' (expected read or write)");
                }
            }
            rules.add(new Permissions.KeyRule(pattern(e.getKey(), path), patterns(byOperation.get("read"), path + ".read"),
                    patterns(byOperation.get("write"), path + ".write")));
        }
        return rules;
    }

    private static List<NamePattern> patterns(Object value, String path) {
        return strings(value, path).stream().map(p -> pattern(p, path)).toList();
    }

    private static NamePattern pattern(String pattern, String path) {
        try {
            return NamePattern.compile(pattern);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": " + e.getMessage());
        }
    }

    private static List<String> strings(Object value, String path) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new IllegalArgumentException(path + ": expected a list of strings");
        }
        List<String> out = new ArrayList<>(list.size());
        for (Object item : list) {
            if (!(item instanceof String s)) {
                throw new IllegalArgumentException(path + ": expected a list of strings");
            }
            out.add(s);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object value, String path) {
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException((path.isEmpty() ? "the claim" : path) + ": expected a JSON object");
        }
        return (Map<String, Object>) map;
    }
}
