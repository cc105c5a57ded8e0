package io.sluice.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamePatternTest {

    @Test
    void literalMatchesOnlyItself() {
        NamePattern p = NamePattern.compile("orders");
        assertThat(p.matches("orders")).isTrue();
        assertThat(p.matches("orders2")).isFalse();
        assertThat(p.matches("order")).isFalse();
    }

    @Test
    void trailingStarIsAPrefix() {
        NamePattern p = NamePattern.compile("orders.*");
        assertThat(p.matches("orders.eu")).isTrue();
        assertThat(p.matches("orders.")).isTrue();
        assertThat(p.matches("orders")).isFalse();
        assertThat(p.matches("ordersX")).isFalse();
    }

    @Test
    void loneStarMatchesEverythingIncludingEmpty() {
        NamePattern p = NamePattern.compile("*");
        assertThat(p.matches("anything")).isTrue();
        assertThat(p.matches("")).isTrue();
        assertThat(p.matches((ByteBuffer) null)).isTrue();
    }

    @Test
    void globStarsMatchAnyRunAndQuestionMarkOneCharacter() {
        NamePattern p = NamePattern.compile("*.orders.v?");
        assertThat(p.matches("eu.orders.v1")).isTrue();
        assertThat(p.matches("a.b.orders.v2")).isTrue();
        assertThat(p.matches("eu.orders.v10")).isFalse();
        assertThat(p.matches(".orders.v1")).isTrue();
        assertThat(NamePattern.compile("a*b*c").matches("aXXbYYbZc")).isTrue();
        assertThat(NamePattern.compile("a*b*c").matches("aXXbYYbZ")).isFalse();
    }

    @Test
    void questionMarkMatchesOneMultiByteCharacter() {
        NamePattern p = NamePattern.compile("caf?");
        assertThat(p.matches("café")).isTrue();
        assertThat(p.matches("cafés")).isFalse();
    }

    @Test
    void backslashMakesWildcardsLiteral() {
        NamePattern p = NamePattern.compile("what\\?\\*");
        assertThat(p.matches("what?*")).isTrue();
        assertThat(p.matches("whatX*")).isFalse();
        assertThatThrownBy(() -> NamePattern.compile("oops\\")).hasMessageContaining("backslash");
    }

    @Test
    void matchesRecordKeyBytesWithoutMovingThePosition() {
        ByteBuffer key = ByteBuffer.wrap("xxlive/7".getBytes(StandardCharsets.UTF_8));
        key.position(2);
        assertThat(NamePattern.compile("live/*").matches(key)).isTrue();
        assertThat(key.position()).isEqualTo(2);
        assertThat(NamePattern.compile("live/*").matches(ByteBuffer.wrap(new byte[] {(byte) 0xff, 0}))).isFalse();
    }

    @Test
    void nullKeyIsTheEmptyKey() {
        assertThat(NamePattern.compile("live/*").matches((ByteBuffer) null)).isFalse();
        assertThat(NamePattern.compile("?*").matches((ByteBuffer) null)).isFalse();
    }

    @Test
    void emptyPatternIsRejected() {
        assertThatThrownBy(() -> NamePattern.compile("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void coversPrefixOnlyWhenEveryNameWithThatPrefixMatches() {
        assertThat(NamePattern.compile("*").coversPrefix("")).isTrue();
        assertThat(NamePattern.compile("live/*").coversPrefix("live/")).isTrue();
        assertThat(NamePattern.compile("live/*").coversPrefix("live/football/")).isTrue();
        assertThat(NamePattern.compile("live/*").coversPrefix("live")).isFalse();
        assertThat(NamePattern.compile("live/*").coversPrefix("")).isFalse();
        assertThat(NamePattern.compile("live/x").coversPrefix("live/x")).isFalse();
        assertThat(NamePattern.compile("*/live/*").coversPrefix("eu/live/")).isTrue();
        assertThat(NamePattern.compile("*/live/*").coversPrefix("eu/")).isFalse();
        assertThat(NamePattern.compile("l?ve/*").coversPrefix("l\u00f6ve/a")).isTrue();
        assertThat(NamePattern.compile("*.x").coversPrefix("a.x")).isFalse();
        assertThat(NamePattern.compile("price\\*").coversPrefix("price*")).isFalse();
    }
}
