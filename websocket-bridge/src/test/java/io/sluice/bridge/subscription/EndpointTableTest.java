package io.sluice.bridge.subscription;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.bridge.config.EndpointMapping;

import static org.assertj.core.api.Assertions.assertThat;

class EndpointTableTest {

    private final EndpointTable table = new EndpointTable(List.of(
            new EndpointMapping("/scores/live/*", "scores", "live/*"),
            new EndpointMapping("/scores/results", "scores", "results"),
            EndpointMapping.wholeTopic("news")));

    @Test
    void endpointsResolveToTopicAndKeyWithSlashesKept() {
        assertThat(table.resolve("/scores/live/football/uefa")).isEqualTo(new EndpointTable.Target("scores", "live/football/uefa"));
        assertThat(table.resolve("/scores/results")).isEqualTo(new EndpointTable.Target("scores", "results"));
        assertThat(table.resolve("/news/")).isEqualTo(new EndpointTable.Target("news", ""));
        assertThat(table.resolve("/scores/other")).isNull();
    }

    @Test
    void recordsMapToTheEndpointsThatResolveBackToThem() {
        assertThat(table.endpointsFor("scores", "live/tennis")).containsExactly("/scores/live/tennis");
        assertThat(table.endpointsFor("scores", "results")).containsExactly("/scores/results");
        assertThat(table.endpointsFor("scores", "match-7")).isEmpty();
        assertThat(table.endpointsFor("news", null)).containsExactly("/news/");
        assertThat(table.endpointsFor("unknown", "k")).isEmpty();
    }

    @Test
    void prefixSubscriptionsCoverWhatTheyCanReceive() {
        assertThat(table.cover("/scores/*")).containsExactlyInAnyOrder(
                new EndpointTable.Cover("scores", "live/", false), new EndpointTable.Cover("scores", "results", true));
        assertThat(table.cover("/scores/live/foot/*")).containsExactly(new EndpointTable.Cover("scores", "live/foot/", false));
        assertThat(table.cover("/news/a")).containsExactly(new EndpointTable.Cover("news", "a", true));
        assertThat(table.cover("/nothing/*")).isEmpty();
        assertThat(EndpointTable.matches("/scores/live/*", "/scores/live/x")).isTrue();
        assertThat(EndpointTable.matches("/scores/live/*", "/scores/results")).isFalse();
    }
}
