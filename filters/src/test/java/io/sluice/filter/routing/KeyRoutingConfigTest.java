package io.sluice.filter.routing;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Route configuration: what a topic name selects, and start-up errors that name the bad field. */
class KeyRoutingConfigTest {

    private static KeyRouting.RouteConfig route(String virtual, String topic, String key) {
        return new KeyRouting.RouteConfig(virtual, topic, key);
    }

    private static RouteTable table(KeyRouting.RouteConfig... routes) {
        return RouteTable.of(new KeyRouting.Config(Arrays.asList(routes), false));
    }

    @Test
    void templatesFillTheRealTopicAndTheKeyPattern() {
        RouteTable routes = table(route("$(t).live.$(sport)", "$(t)", "live/$(sport)/*"));

        assertThat(routes.view("scores.live.tennis")).hasValueSatisfying(v -> {
            assertThat(v.topic()).isEqualTo("scores");
            assertThat(v.admits(java.nio.ByteBuffer.wrap("live/tennis/wimbledon".getBytes()))).isTrue();
            assertThat(v.admits(java.nio.ByteBuffer.wrap("live/football/x".getBytes()))).isFalse();
            assertThat(v.admits(null)).isFalse();
        });
        assertThat(routes.virtual("scores.live.ten.nis")).as("a placeholder never spans a dot").isEmpty();
    }

    @Test
    void aLiteralVirtualNameWinsOverATemplateThatAlsoFitsIt() {
        RouteTable routes = table(route("scores.$(match)", "scores", "$(match)"), route("scores.results", "scores", "results"));

        assertThat(routes.view("scores.results")).hasValueSatisfying(v -> assertThat(v.keys()).hasToString("results"));
        assertThat(routes.view("scores.f35")).hasValueSatisfying(v -> assertThat(v.keys()).hasToString("f35"));
    }

    @Test
    void realTopicsAreHiddenOnlyWhenAsked() {
        List<KeyRouting.RouteConfig> routes = List.of(route("scores.results", "scores", "results"));
        assertThat(RouteTable.of(new KeyRouting.Config(routes, true)).view("scores")).isEmpty();
        assertThat(RouteTable.of(new KeyRouting.Config(routes, null)).view("scores")).hasValueSatisfying(v -> assertThat(v.isVirtual()).isFalse());
    }

    @Test
    void missingRoutesAreRefused() {
        assertThatThrownBy(() -> RouteTable.of(new KeyRouting.Config(List.of(), false))).hasMessage("routes: at least one route is required");
        assertThatThrownBy(() -> RouteTable.of(null)).hasMessageStartingWith("routes:");
    }

    @Test
    void emptyNamesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> table(route("", "scores", "k"))).hasMessage("routes[0].virtual: is required");
        assertThatThrownBy(() -> table(route("a", null, "k"))).hasMessage("routes[0].topic: is required");
        assertThatThrownBy(() -> table(route("a", "b", ""))).hasMessageStartingWith("routes[0].key: is required");
    }

    @Test
    void illegalTopicNamesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> table(route("ok", "b", "k"), route("scores/live", "scores", "k")))
                .hasMessageStartingWith("routes[1].virtual: 'scores/live' is not a legal Kafka topic name");
        assertThatThrownBy(() -> table(route("a", "..", "k"))).hasMessageStartingWith("routes[0].topic: '..' is not a legal Kafka topic name");
        assertThatThrownBy(() -> table(route("a", "x".repeat(250), "k"))).hasMessageContaining("routes[0].topic:").hasMessageContaining("at most 249");
        assertThatThrownBy(() -> table(route("a.$(x", "b", "k"))).hasMessageStartingWith("routes[0].virtual:");
    }

    @Test
    void placeholdersMustComeFromTheVirtualName() {
        assertThatThrownBy(() -> table(route("scores.$(match)", "scores", "$(game)")))
                .hasMessage("routes[0].key: uses $(game), which routes[0].virtual 'scores.$(match)' does not define");
        assertThatThrownBy(() -> table(route("scores.$(match)", "$(t)", "$(match)")))
                .hasMessageStartingWith("routes[0].topic: uses $(t)");
    }

    @Test
    void overlappingOrRepeatedRoutesAreRefusedNamingBoth() {
        assertThatThrownBy(() -> table(route("scores.$(a)", "scores", "$(a)"), route("scores.$(b)", "scores", "x/$(b)")))
                .hasMessageStartingWith("routes[1].virtual: 'scores.$(b)' overlaps routes[0].virtual 'scores.$(a)'");
        assertThatThrownBy(() -> table(route("s.live-$(a)", "s", "$(a)"), route("s.$(b)-x", "s", "$(b)")))
                .hasMessageStartingWith("routes[1].virtual:");
        assertThatThrownBy(() -> table(route("scores.results", "scores", "results"), route("scores.results", "scores", "final")))
                .hasMessage("routes[1].virtual: 'scores.results' is already routes[0].virtual");
        // Different numbers of parts, or literal parts that differ, never fit one name.
        assertThat(table(route("scores.$(a)", "scores", "$(a)"), route("scores.live.$(b)", "scores", "live/$(b)"), route("news.$(c)", "news", "$(c)")))
                .isNotNull();
    }

    @Test
    void aBadKeyPatternIsRefusedNamingTheField() {
        assertThatThrownBy(() -> table(route("a", "b", "live\\"))).hasMessageStartingWith("routes[0].key: pattern 'live\\' ends with a lone backslash");
    }
}
