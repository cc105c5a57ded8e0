package io.sluice.auth;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PermissionsTest {

    private static final Map<String, Object> CLAIM = Map.of(
            "topics", Map.of("orders.*", List.of("read", "write"), "audit", List.of("describe"), "public", List.of("read")),
            "keys", Map.of("scores", Map.of("read", List.of("live/*"), "write", List.of("live/team-a/*"))),
            "groups", List.of("app-*"),
            "transactionalIds", List.of("tx-app-*"));

    @Test
    void topicRulesGrantTheirOperationsAndImplyDescribe() {
        Permissions p = Permissions.fromClaim(CLAIM);

        assertThat(p.canRead("orders.eu")).isTrue();
        assertThat(p.canWrite("orders.eu")).isTrue();
        assertThat(p.canDescribe("orders.eu")).isTrue();
        assertThat(p.canRead("public")).isTrue();
        assertThat(p.canWrite("public")).isFalse();
        assertThat(p.canDescribe("audit")).isTrue();
        assertThat(p.canRead("audit")).isFalse();
        assertThat(p.canDescribe("secret")).isFalse();
        assertThat(p.topic("secret")).isEqualTo(TopicAccess.NONE);
    }

    @Test
    void keyRulesGrantOnlyMatchingKeysAndDescribe() {
        Permissions p = Permissions.fromClaim(CLAIM);

        TopicAccess scores = p.topic("scores");
        assertThat(scores.describe()).isTrue();
        assertThat(scores.read().any()).isTrue();
        assertThat(scores.read().all()).isFalse();
        assertThat(p.canReadKey("scores", bytes("live/1"))).isTrue();
        assertThat(p.canReadKey("scores", bytes("dead/1"))).isFalse();
        assertThat(p.canReadKey("scores", (byte[]) null)).isFalse();
        assertThat(p.canWriteKey("scores", bytes("live/team-a/1"))).isTrue();
        assertThat(p.canWriteKey("scores", bytes("live/team-b/1"))).isFalse();
    }

    @Test
    void grantsAddUpSoATopicRuleOutranksKeyLimits() {
        Permissions p = Permissions.builder()
                .topic("scores", Permissions.Operation.READ)
                .keys("scores", List.of("live/*"), List.of())
                .build();

        assertThat(p.topic("scores").read().all()).isTrue();
        assertThat(p.canReadKey("scores", bytes("dead/1"))).isTrue();
    }

    @Test
    void groupsTransactionalIdsAndAdmin() {
        Permissions p = Permissions.fromClaim(CLAIM);

        assertThat(p.canUseGroup("app-1")).isTrue();
        assertThat(p.canUseGroup("other")).isFalse();
        assertThat(p.canUseTransactionalId("tx-app-1")).isTrue();
        assertThat(p.canUseTransactionalId("tx-other")).isFalse();
        assertThat(p.isAdmin()).isFalse();

        Permissions admin = Permissions.fromClaim(Map.of("admin", true));
        assertThat(admin.isAdmin()).isTrue();
        assertThat(admin.canReadKey("anything", bytes("any"))).isTrue();
        assertThat(admin.canUseGroup("any")).isTrue();
    }

    @Test
    void missingOrEmptyClaimGrantsNothing() {
        for (Permissions none : List.of(Permissions.fromClaim(null), Permissions.fromClaim(Map.of()))) {
            assertThat(none.isAdmin()).isFalse();
            assertThat(none.topic("orders")).isEqualTo(TopicAccess.NONE);
            assertThat(none.canUseGroup("orders-app")).isFalse();
            assertThat(none.canUseTransactionalId("orders-tx")).isFalse();
        }
    }

    @Test
    void claimMayBeAJsonString() {
        Permissions p = Permissions.fromClaim("{\"topics\": {\"orders\": [\"read\"]}, \"groups\": [\"g\"]}");

        assertThat(p.canRead("orders")).isTrue();
        assertThat(p.canUseGroup("g")).isTrue();
    }

    @Test
    void mistakesInTheClaimAreRejectedWithWhereTheyAre() {
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("topcs", Map.of()))).hasMessageContaining("unknown field 'topcs'");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("topics", Map.of("orders", List.of("raed")))))
                .hasMessageContaining("topics.orders: unknown operation 'raed'");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("keys", Map.of("s", Map.of("reed", List.of("x"))))))
                .hasMessageContaining("keys.s: unknown field 'reed'");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("groups", "app-*"))).hasMessageContaining("groups: expected a list of strings");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("admin", "yes"))).hasMessageContaining("admin: expected true or false");
        assertThatThrownBy(() -> Permissions.fromClaim(List.of())).hasMessageContaining("expected a JSON object");
        assertThatThrownBy(() -> Permissions.fromClaim("not json")).hasMessageContaining("JSON object");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readingAKeyPrefixNeedsARuleCoveringEveryKeyUnderIt() {
        Permissions p = Permissions.fromClaim(CLAIM);

        assertThat(p.canReadKeysWithPrefix("scores", "live/")).isTrue();
        assertThat(p.canReadKeysWithPrefix("scores", "live/football/")).isTrue();
        assertThat(p.canReadKeysWithPrefix("scores", "")).isFalse();
        assertThat(p.canReadKeysWithPrefix("scores", "results")).isFalse();
        assertThat(p.canReadKeysWithPrefix("orders.eu", "")).isTrue();
        assertThat(p.canReadKeysWithPrefix("audit", "")).isFalse();
        assertThat(Permissions.admin().canReadKeysWithPrefix("anything", "")).isTrue();
    }

    @Test
    void rowFilteredTopicsAreNotReadableUnlessTheCallerAppliesTheFilters() {
        Permissions p = Permissions.fromClaim(Map.of(
                "topics", Map.of("orders.*", List.of("read", "write"), "audit", List.of("read")),
                "keys", Map.of("prices", Map.of("read", List.of("eu/*"))),
                "filters", Map.of("orders.*", Map.of("eq", List.of("/value/branch", 17)),
                        "orders.eu", Map.of("exists", "/value/id"),
                        "prices", Map.of("exists", "/value/bid"))));

        // As the proxy sees them: a row-filtered topic may be written and described, never read (a Fetch cannot be
        // filtered by rows), whether the read comes from a topic rule or a key rule.
        assertThat(p.topic("orders.eu").describe()).isTrue();
        assertThat(p.canWrite("orders.eu")).isTrue();
        assertThat(p.canRead("orders.eu")).isFalse();
        assertThat(p.canReadKey("prices", "eu/x".getBytes())).isFalse();
        assertThat(p.canRead("audit")).as("a topic without a row filter").isTrue();

        Permissions bridge = p.rowFiltersAppliedByCaller();
        assertThat(bridge.canRead("orders.eu")).isTrue();
        assertThat(bridge.canReadKey("prices", "eu/x".getBytes())).isTrue();
        assertThat(bridge.rowFilters("orders.eu")).extracting(Permissions.RowFilter::pattern).containsExactly("orders.*", "orders.eu");
        assertThat(bridge.rowFilters("orders.us")).extracting(Permissions.RowFilter::pattern).containsExactly("orders.*");
        assertThat(bridge.rowFilters("audit")).isEmpty();
        assertThat(bridge.rowFilters("orders.eu").get(0).filter()).isEqualTo(Map.of("eq", List.of("/value/branch", 17)));
    }

    @Test
    void rowFilterClaimsThatCannotBeHonouredAreRefused() {
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("admin", true, "filters", Map.of("t", Map.of("exists", "/value/a")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("admin");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("filters", Map.of("t", List.of("eq")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("filters.t: expected a filter (a JSON object)");
        Map<String, Object> many = new java.util.HashMap<>();
        for (int i = 0; i <= 32; i++) {
            many.put("t" + i, Map.of("exists", "/value/a"));
        }
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("filters", many)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("filters: more than 32 topic patterns");
    }

    @Test
    void theQuotasMemberCarriesLimitsAsWholePositiveNumbersAndIsStrict() {
        // As identity providers send it: a string claim parsed by nimbus (whole numbers as Long, 1e6 as a Double).
        Permissions fromString = Permissions.fromClaim("""
                {"topics": {"t": ["read"]}, "quotas": {"produceBytesPerSecond": 1048576, "fetchBytesPerSecond": 2e6}}""");
        assertThat(fromString.quotas()).isEqualTo(new QuotaLimits(1_048_576L, 2_000_000L, null));
        assertThat(fromString.canRead("t")).isTrue();
        assertThat(Permissions.fromClaim(Map.of("topics", Map.of())).quotas()).isEqualTo(QuotaLimits.NONE);
        assertThat(Permissions.fromClaim(Map.of("admin", true, "quotas", Map.of("requestsPerSecond", 50))).quotas())
                .as("an admin is limited like anyone").isEqualTo(new QuotaLimits(null, null, 50L));

        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("quotas", Map.of("produceBytesPerSec", 1))))
                .hasMessageContaining("quotas: unknown field 'produceBytesPerSec' (expected fetchBytesPerSecond, produceBytesPerSecond, requestsPerSecond)");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("quotas", Map.of("fetchBytesPerSecond", 0))))
                .hasMessageContaining("quotas.fetchBytesPerSecond: must be a positive number, not 0");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("quotas", Map.of("requestsPerSecond", 1.5))))
                .hasMessageContaining("quotas.requestsPerSecond: expected a whole number");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("quotas", Map.of("requestsPerSecond", "10"))))
                .hasMessageContaining("quotas.requestsPerSecond: expected a whole number");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("quotas", List.of(1)))).hasMessageContaining("quotas: expected a JSON object");
    }

    @Test
    void quotaLimitsCombineFieldByField() {
        QuotaLimits config = new QuotaLimits(1000L, null, 100L);
        QuotaLimits token = new QuotaLimits(5000L, 300L, 10L);
        assertThat(config.lowest(token)).as("a token only lowers").isEqualTo(new QuotaLimits(1000L, 300L, 10L));
        assertThat(new QuotaLimits(null, 7L, null).orElse(config)).isEqualTo(new QuotaLimits(1000L, 7L, 100L));
        assertThat(new QuotaLimits(1000L, 1L, null).dividedBy(3)).as("rounded up, never zero").isEqualTo(new QuotaLimits(334L, 1L, null));
        assertThatThrownBy(() -> new QuotaLimits(-1L, null, null)).hasMessage("produceBytesPerSecond: must be a positive number, not -1");
    }

    @Test
    void unmaskGrantsShowAFieldAndWhatIsUnderItInTheTopicsTheyName() {
        Permissions p = Permissions.fromClaim(Map.of("topics", Map.of("payments.*", List.of("read")),
                "unmask", List.of("payments.*:/card/number", "audit:*", "a:b:/x~1y")));

        assertThat(p.unmasked("payments.eu", "/card/number")).isTrue();
        assertThat(p.unmasked("payments.eu", "/card/number/last")).as("under the granted field").isTrue();
        assertThat(p.unmasked("payments.eu", "/card/numbers")).as("a sibling sharing its prefix").isFalse();
        assertThat(p.unmasked("payments.eu", "/card")).as("the parent holds more than the grant").isFalse();
        assertThat(p.unmasked("orders", "/card/number")).isFalse();
        assertThat(p.unmasked("audit", "/anything/at/all")).isTrue();
        assertThat(p.unmasked("a:b", "/x~1y")).as("a topic name holding ':'").isTrue();
        assertThat(Permissions.fromClaim(Map.of()).unmasked("payments.eu", "/card/number")).isFalse();
        assertThat(Permissions.admin().unmasked("payments.eu", "/card/number")).as("an admin reads records as stored").isTrue();
        assertThat(p.toString()).contains("unmask=[payments.*:/card/number, audit:*, a:b:/x~1y]");
    }

    @Test
    void unmaskGrantsAreCheckedForShapeAndBoundedBeforeCompiling() {
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", List.of("orders"))))
                .hasMessageContaining("unmask[0]: expected '<topic pattern>:<JSON Pointer>'");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", List.of(":/card"))))
                .hasMessageContaining("unmask[0]: a pattern must not be empty");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", List.of("orders:/card/"))))
                .hasMessageContaining("must not end with '/'");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", "orders:*")))
                .hasMessageContaining("unmask: expected a list of strings");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", java.util.Collections.nCopies(65, "orders:*"))))
                .hasMessageContaining("unmask: more than 64 grants");
        assertThatThrownBy(() -> Permissions.fromClaim(Map.of("unmask", List.of("o:/" + "x".repeat(600)))))
                .hasMessageContaining("unmask[0]: longer than 512 characters");
    }
}
