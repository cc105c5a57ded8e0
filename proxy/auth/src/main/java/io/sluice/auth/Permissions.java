package io.sluice.auth;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a principal may do, compiled from its token's permissions claim (format in docs/jwt.md). Grants only
 * add up: there are no denies, and a principal granted nothing is valid and simply sees nothing.
 *
 * <ul>
 *   <li>topic rules: a topic pattern with any of read, write, describe (read and write imply describe);</li>
 *   <li>key rules: a topic pattern with key patterns for read and for write; they grant access to the
 *       records with matching keys only (and describe of the topic), unless a topic rule grants the whole topic;</li>
 *   <li>group patterns: consumer groups (and share/streams groups) that may be joined, committed to and described;</li>
 *   <li>transactional id patterns: transactions that may be used;</li>
 *   <li>admin: everything, including creating and deleting topics and changing configs.</li>
 *   <li>row filters: per topic pattern, a filter (the WebSocket bridge's filter language, docs/bridge-filters.md) that
 *       every subscription of the bridge on a matching topic is ANDed with. Only a caller that applies them may see
 *       the topic's records: {@link #topic} grants no read of a row-filtered topic (the proxy cannot filter rows
 *       inside a Fetch), and {@link #rowFiltersAppliedByCaller()} gives the view for a caller that applies them.</li>
 *   <li>quotas: how fast the principal may produce, fetch and send requests ({@link QuotaLimits}); not a grant but a
 *       ceiling, which the Quotas filter applies where it is lower than its configuration's.</li>
 * </ul>
 *
 * <p>Immutable and safe to share between threads.</p>
 */
public final class Permissions {

    /** What a topic rule grants. */
    public enum Operation {
        READ, WRITE, DESCRIBE
    }

    record TopicRule(NamePattern topic, Set<Operation> operations) {
    }

    record KeyRule(NamePattern topic, List<NamePattern> read, List<NamePattern> write) {
    }

    /**
     * A mandatory filter for the topics matching {@code pattern}: {@code filter} is the claim's JSON object as the token
     * carried it (maps, lists, strings, numbers, booleans, nulls), for the caller to compile with its own limits.
     */
    public record RowFilter(String pattern, NamePattern topic, Map<String, Object> filter) {
    }

    /**
     * A grant to see masked fields whole (the claim's {@code unmask}, docs/masking.md): {@code "<topic pattern>:<JSON
     * Pointer>"} unmasks the field at the pointer and everything under it in the topics the pattern matches;
     * {@code "<topic pattern>:*"} every field of those topics.
     *
     * @param grant   the claim's text
     * @param pointer the JSON Pointer, or null for every field
     */
    public record Unmask(String grant, NamePattern topic, String pointer) {

        /** Whether this grant shows {@code path} (a JSON Pointer) of {@code topic} whole. */
        public boolean covers(String topicName, String path) {
            if (!topic.matches(topicName)) {
                return false;
            }
            return pointer == null || path.equals(pointer) || path.startsWith(pointer) && path.charAt(pointer.length()) == '/';
        }
    }

    private static final Permissions NONE = new Permissions(false, List.of(), List.of(), List.of(), List.of());
    private static final Permissions ADMIN = new Permissions(true, List.of(), List.of(), List.of(), List.of());

    private final boolean admin;
    private final List<TopicRule> topicRules;
    private final List<KeyRule> keyRules;
    private final List<NamePattern> groups;
    private final List<NamePattern> transactionalIds;
    private final List<RowFilter> rowFilters;
    private final boolean rowFiltersApplied;
    private final QuotaLimits quotas;
    private final List<Unmask> unmask;

    Permissions(boolean admin, List<TopicRule> topicRules, List<KeyRule> keyRules, List<NamePattern> groups, List<NamePattern> transactionalIds) {
        this(admin, topicRules, keyRules, groups, transactionalIds, List.of(), false, QuotaLimits.NONE, List.of());
    }

    Permissions(boolean admin, List<TopicRule> topicRules, List<KeyRule> keyRules, List<NamePattern> groups, List<NamePattern> transactionalIds,
                List<RowFilter> rowFilters, boolean rowFiltersApplied, QuotaLimits quotas, List<Unmask> unmask) {
        if (admin && !rowFilters.isEmpty()) {
            throw new IllegalArgumentException("filters: an admin token cannot carry row filters (admin reads every record)");
        }
        this.admin = admin;
        this.topicRules = List.copyOf(topicRules);
        this.keyRules = List.copyOf(keyRules);
        this.groups = List.copyOf(groups);
        this.transactionalIds = List.copyOf(transactionalIds);
        // Sorted by pattern text: the ANDed result does not depend on the claim's member order.
        this.rowFilters = rowFilters.stream().sorted(java.util.Comparator.comparing(RowFilter::pattern)).toList();
        this.rowFiltersApplied = rowFiltersApplied;
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.unmask = List.copyOf(unmask);
    }

    /**
     * The same permissions for a caller that applies the row filters itself (the bridge): reads of row-filtered topics
     * are granted as the rules say, and the caller must AND {@link #rowFilters(String)} into what it delivers.
     */
    public Permissions rowFiltersAppliedByCaller() {
        return rowFilters.isEmpty() ? this : new Permissions(admin, topicRules, keyRules, groups, transactionalIds, rowFilters, true, quotas, unmask);
    }

    /** The row filters for a topic, in pattern order; empty when none applies. */
    public List<RowFilter> rowFilters(String topic) {
        List<RowFilter> matching = new ArrayList<>();
        for (RowFilter f : rowFilters) {
            if (f.topic().matches(topic)) {
                matching.add(f);
            }
        }
        return matching;
    }

    /** Every row filter of the token, in pattern order (for validating them all at once). */
    public List<RowFilter> rowFilters() {
        return rowFilters;
    }

    /** The token's own quota limits ({@link QuotaLimits#NONE} when it carries none): they can only lower the configured ones. */
    public QuotaLimits quotas() {
        return quotas;
    }

    /** The token's unmask grants, in claim order; empty when it carries none. */
    public List<Unmask> unmask() {
        return unmask;
    }

    /**
     * Whether this principal sees {@code path} (a JSON Pointer into the record value) of {@code topic} whole although a
     * mask names it: an unmask grant covers it, or the token is an admin's (which reads every record as stored).
     */
    public boolean unmasked(String topic, String path) {
        if (admin) {
            return true;
        }
        for (Unmask grant : unmask) {
            if (grant.covers(topic, path)) {
                return true;
            }
        }
        return false;
    }

    public static Permissions none() {
        return NONE;
    }

    public static Permissions admin() {
        return ADMIN;
    }

    /**
     * Compiles the value of the permissions claim: a JSON object, or a string holding one (for identity
     * providers that can only issue string claims); null (no claim) grants nothing.
     *
     * @throws IllegalArgumentException naming the part of the claim that is wrong
     */
    public static Permissions fromClaim(Object claim) {
        return PermissionsClaim.parse(claim);
    }

    public static Builder builder() {
        return new Builder();
    }

    public boolean isAdmin() {
        return admin;
    }

    /** Everything this principal may do with the topic. Callers checking many records should keep the result. */
    public TopicAccess topic(String topic) {
        if (admin) {
            return TopicAccess.ALL;
        }
        EnumSet<Operation> operations = EnumSet.noneOf(Operation.class);
        for (TopicRule rule : topicRules) {
            if (rule.topic().matches(topic)) {
                operations.addAll(rule.operations());
            }
        }
        List<NamePattern> readKeys = new ArrayList<>();
        List<NamePattern> writeKeys = new ArrayList<>();
        boolean keyRuleMatched = false;
        for (KeyRule rule : keyRules) {
            if (rule.topic().matches(topic)) {
                keyRuleMatched |= !rule.read().isEmpty() || !rule.write().isEmpty();
                readKeys.addAll(rule.read());
                writeKeys.addAll(rule.write());
            }
        }
        KeyAccess read = operations.contains(Operation.READ) ? KeyAccess.ALL : KeyAccess.ofKeys(readKeys);
        if (!rowFiltersApplied && !rowFilters(topic).isEmpty()) {
            read = KeyAccess.NONE; // only a caller that filters rows may read them
        }
        KeyAccess write = operations.contains(Operation.WRITE) ? KeyAccess.ALL : KeyAccess.ofKeys(writeKeys);
        boolean describe = !operations.isEmpty() || keyRuleMatched;
        if (!describe) {
            return TopicAccess.NONE;
        }
        return new TopicAccess(true, read, write);
    }

    public boolean canDescribe(String topic) {
        return topic(topic).describe();
    }

    /** Whether some (perhaps not all) records of the topic may be read. */
    public boolean canRead(String topic) {
        return topic(topic).read().any();
    }

    public boolean canReadKey(String topic, ByteBuffer key) {
        return topic(topic).read().allows(key);
    }

    public boolean canReadKey(String topic, byte[] key) {
        return canReadKey(topic, key == null ? null : ByteBuffer.wrap(key));
    }

    /** Whether every record of the topic whose key starts with {@code keyPrefix} may be read ("" : the whole topic). */
    public boolean canReadKeysWithPrefix(String topic, String keyPrefix) {
        return topic(topic).read().coversPrefix(keyPrefix);
    }

    /** Whether some (perhaps not all) records may be written to the topic. */
    public boolean canWrite(String topic) {
        return topic(topic).write().any();
    }

    public boolean canWriteKey(String topic, ByteBuffer key) {
        return topic(topic).write().allows(key);
    }

    public boolean canWriteKey(String topic, byte[] key) {
        return canWriteKey(topic, key == null ? null : ByteBuffer.wrap(key));
    }

    /** Join, commit offsets to and describe the group (consumer, share or streams group). */
    public boolean canUseGroup(String groupId) {
        return admin || anyMatches(groups, groupId);
    }

    public boolean canUseTransactionalId(String transactionalId) {
        return admin || anyMatches(transactionalIds, transactionalId);
    }

    private static boolean anyMatches(List<NamePattern> patterns, String name) {
        if (name == null) {
            return false;
        }
        for (NamePattern p : patterns) {
            if (p.matches(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        if (admin) {
            return "Permissions[admin" + (quotas.isEmpty() ? "" : ", quotas=" + quotas) + "]";
        }
        return "Permissions[topics=" + topicRules + ", keys=" + keyRules + ", groups=" + groups + ", transactionalIds=" + transactionalIds
                + (rowFilters.isEmpty() ? "" : ", rowFilters=" + rowFilters.stream().map(RowFilter::pattern).toList())
                + (quotas.isEmpty() ? "" : ", quotas=" + quotas)
                + (unmask.isEmpty() ? "" : ", unmask=" + unmask.stream().map(Unmask::grant).toList()) + "]";
    }

    /** Builds permissions in code, for tests and for callers that do not start from a token. */
    public static final class Builder {
        private boolean admin;
        private final List<TopicRule> topics = new ArrayList<>();
        private final List<KeyRule> keys = new ArrayList<>();
        private final List<NamePattern> groups = new ArrayList<>();
        private final List<NamePattern> transactionalIds = new ArrayList<>();
        private QuotaLimits quotas = QuotaLimits.NONE;
        private final List<Unmask> unmask = new ArrayList<>();

        public Builder admin(boolean admin) {
            this.admin = admin;
            return this;
        }

        public Builder topic(String pattern, Operation first, Operation... more) {
            topics.add(new TopicRule(NamePattern.compile(pattern), Set.copyOf(EnumSet.of(first, more))));
            return this;
        }

        public Builder keys(String topicPattern, List<String> readKeys, List<String> writeKeys) {
            keys.add(new KeyRule(NamePattern.compile(topicPattern), readKeys.stream().map(NamePattern::compile).toList(),
                    writeKeys.stream().map(NamePattern::compile).toList()));
            return this;
        }

        public Builder group(String pattern) {
            groups.add(NamePattern.compile(pattern));
            return this;
        }

        public Builder transactionalId(String pattern) {
            transactionalIds.add(NamePattern.compile(pattern));
            return this;
        }

        public Builder quotas(QuotaLimits quotas) {
            this.quotas = Objects.requireNonNull(quotas, "quotas");
            return this;
        }

        /** An unmask grant as the claim writes it, {@code "orders.*:/card/number"}. */
        public Builder unmask(String grant) {
            unmask.add(PermissionsClaim.unmaskGrant(grant, "unmask"));
            return this;
        }

        public Permissions build() {
            return new Permissions(admin, topics, keys, groups, transactionalIds, List.of(), false, quotas, unmask);
        }
    }
}
