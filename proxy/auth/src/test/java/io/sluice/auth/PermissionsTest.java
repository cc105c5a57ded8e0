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
}
