package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.subscription.SubscriptionIndex.Order;

import static org.assertj.core.api.Assertions.assertThat;

/** The one prefix walk that picks who covers an endpoint (receivers, possible receivers, delta subscribers). */
class SubscriptionIndexTest {

    private static final Outlet<Void> OUTLET = new Outlet<>() {
        @Override
        public EventExecutor executor() {
            return ImmediateEventExecutor.INSTANCE;
        }

        @Override
        public void deliver(Subscription<Void> subscription, EncodedMessage message) {
        }

        @Override
        public void flush() {
        }
    };

    private final SubscriptionIndex index = new SubscriptionIndex();

    private Subscription<Void> add(String pattern) {
        Subscription<Void> s = new Subscription<>(OUTLET, pattern, false, null, null, null);
        index.add(s);
        return s;
    }

    private List<String> covering(String endpoint, Order order) {
        List<String> patterns = new ArrayList<>();
        boolean complete = index.walk(endpoint, order, list -> {
            assertThat(list).isNotEmpty();
            list.forEach(s -> patterns.add(s.pattern()));
            return true;
        });
        assertThat(complete).isTrue();
        return patterns;
    }

    @Test
    void anExactSubscriptionCoversItsEndpointOnly() {
        add("/a/b");

        assertThat(covering("/a/b", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/b");
        assertThat(covering("/a/bc", Order.MOST_SPECIFIC_FIRST)).isEmpty();
        assertThat(covering("/a/b/c", Order.MOST_SPECIFIC_FIRST)).isEmpty();
        assertThat(covering("/a", Order.MOST_SPECIFIC_FIRST)).isEmpty();
        assertThat(index.hasPrefixes()).isFalse();
        assertThat(index.exactly("/a/b")).extracting(Subscription::pattern).containsExactly("/a/b");
        assertThat(index.exactly("/a/c")).isNull();
    }

    @Test
    void prefixesMatchAtEveryLevelExactFirstThenInTheWalksOrder() {
        add("/*");
        add("/a/*");
        add("/a/b/*");
        add("/a/b/c");

        assertThat(covering("/a/b/c", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/b/c", "/a/b/*", "/a/*", "/*");
        assertThat(covering("/a/b/c", Order.LEAST_SPECIFIC_FIRST)).containsExactly("/a/b/c", "/*", "/a/*", "/a/b/*");
        assertThat(covering("/a/x", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/*", "/*");
        assertThat(covering("/z", Order.MOST_SPECIFIC_FIRST)).containsExactly("/*");
        assertThat(covering("/a/b/c/d/e", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/b/*", "/a/*", "/*");
    }

    @Test
    void aPrefixDoesNotCoverAnEndpointThatOnlyStartsWithItsText() {
        add("/a/b/*");

        assertThat(covering("/a/bc", Order.MOST_SPECIFIC_FIRST)).isEmpty();
        assertThat(covering("/a/b", Order.MOST_SPECIFIC_FIRST)).as("the prefix's own parent").isEmpty();
        assertThat(covering("/a/bc/d", Order.MOST_SPECIFIC_FIRST)).isEmpty();
        assertThat(covering("/x/a/b/c", Order.MOST_SPECIFIC_FIRST)).as("the prefix in the middle").isEmpty();
        assertThat(covering("/a/b/c", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/b/*");
    }

    @Test
    void theWalkAgreesWithEndpointTableMatchesForEveryPatternAndEndpoint() {
        List<String> patterns = List.of("/*", "/a/*", "/a/b/*", "/ab/*", "/a/b", "/a/bc", "/a/b/", "/a/b/c", "/b/*");
        List<String> endpoints = List.of("/", "/a", "/a/", "/a/b", "/a/b/", "/a/bc", "/a/b/c", "/ab/c", "/b", "/b/a/b/c", "/a/b/c/d");
        patterns.forEach(this::add);
        for (String endpoint : endpoints) {
            List<String> expected = patterns.stream().filter(p -> EndpointTable.matches(p, endpoint)).toList();
            assertThat(covering(endpoint, Order.MOST_SPECIFIC_FIRST)).as(endpoint).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(covering(endpoint, Order.LEAST_SPECIFIC_FIRST)).as(endpoint).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void subscriptionsOfOnePatternAreKeptApartAndRemovedOneByOne() {
        Subscription<Void> first = add("/a/*");
        Subscription<Void> second = add("/a/*");
        Subscription<Void> exact = add("/a/b");

        assertThat(index.remove(first)).isTrue();
        assertThat(index.remove(first)).as("already removed").isFalse();
        assertThat(covering("/a/b", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/b", "/a/*");
        assertThat(index.hasPrefixes()).isTrue();

        assertThat(index.remove(second)).isTrue();
        assertThat(index.hasPrefixes()).as("the last prefix subscription left").isFalse();
        assertThat(index.remove(exact)).isTrue();
        assertThat(index.exactly("/a/b")).isNull();
        assertThat(covering("/a/b", Order.MOST_SPECIFIC_FIRST)).isEmpty();
    }

    @Test
    void aSubscriptionNeverAddedIsNotRemoved() {
        add("/a/*");
        assertThat(index.remove(new Subscription<>(OUTLET, "/a/*", false, null, null, null))).isFalse();
        assertThat(index.remove(new Subscription<>(OUTLET, "/b", false, null, null, null))).isFalse();
        assertThat(covering("/a/b", Order.MOST_SPECIFIC_FIRST)).containsExactly("/a/*");
    }

    @Test
    void theWalkStopsWhenTheVisitorSaysSo() {
        add("/a/b");
        add("/a/*");
        add("/*");
        List<String> visited = new ArrayList<>();

        boolean complete = index.walk("/a/b", Order.MOST_SPECIFIC_FIRST, list -> {
            visited.add(list.get(0).pattern());
            return !list.get(0).pattern().equals("/a/*");
        });

        assertThat(complete).isFalse();
        assertThat(visited).containsExactly("/a/b", "/a/*");
    }
}
