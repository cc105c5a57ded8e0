package io.sluice.proxy.config;

import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server names of {@code sniHostIdentifiesNode}: parsing, the node id a name stands for, and overlap. */
class HostPatternTest {

    @Test
    void aPatternNamesEachBrokerOnceInCanonicalDecimal() {
        HostPattern brokers = HostPattern.parse("Broker-$(nodeId).Kafka.Example.com");

        assertThat(brokers.host(7)).isEqualTo("broker-7.kafka.example.com");
        assertThat(brokers.nodeId("broker-7.kafka.example.com")).isEqualTo(OptionalInt.of(7));
        assertThat(brokers.nodeId("broker-0.kafka.example.com")).isEqualTo(OptionalInt.of(0));
        assertThat(brokers.nodeId("broker-2147483647.kafka.example.com")).isEqualTo(OptionalInt.of(Integer.MAX_VALUE));
        for (String notOne : List.of("broker-07.kafka.example.com", "broker-.kafka.example.com", "broker-2147483648.kafka.example.com",
                "broker-99999999999999999999.kafka.example.com", "broker-1x.kafka.example.com", "broker-1.kafka.example.com.evil",
                "xbroker-1.kafka.example.com", "broker--1.kafka.example.com", "bootstrap.kafka.example.com")) {
            assertThat(brokers.nodeId(notOne)).as(notOne).isEmpty();
        }
        assertThat(brokers.matches("broker-7.kafka.example.com")).isFalse();
        HostPattern bootstrap = HostPattern.parse("bootstrap.kafka.example.com");
        assertThat(bootstrap.matches("bootstrap.kafka.example.com")).isTrue();
        assertThat(bootstrap.nodeId("bootstrap.kafka.example.com")).isEmpty();
    }

    @Test
    void badPatternsSayWhy() {
        assertThatThrownBy(() -> HostPattern.parse("b-$(nodeId)-$(nodeId).x")).hasMessageContaining("more than once");
        assertThatThrownBy(() -> HostPattern.parse("b-$(node).x")).hasMessageContaining("only the $(nodeId) placeholder");
        assertThatThrownBy(() -> HostPattern.parse("b-$(NODEID).x")).hasMessageContaining("only the $(nodeId) placeholder");
        assertThatThrownBy(() -> HostPattern.parse("b_$(nodeId).x")).hasMessageContaining("is not a host name");
        assertThatThrownBy(() -> HostPattern.parse("b..x")).hasMessageContaining("is not a host name");
        assertThatThrownBy(() -> HostPattern.parse("b.x.")).hasMessageContaining("trailing dot");
        assertThatThrownBy(() -> HostPattern.parse("10.0.0.1")).hasMessageContaining("is an IP address");
        assertThatThrownBy(() -> HostPattern.parse("a".repeat(64) + ".x")).hasMessageContaining("label longer than 63");
        // 245 characters for node 0, fine, too long for the largest node id.
        String near = "a".repeat(60) + "." + "b".repeat(60) + "." + "c".repeat(60) + "." + "d".repeat(60) + ".$(nodeId)";
        assertThatThrownBy(() -> HostPattern.parse(near)).hasMessageContaining("longer than 253 characters for node id 2147483647");
    }

    @Test
    void overlapIsExact() {
        assertOverlap("broker-$(nodeId).a.example.com", "broker-$(nodeId).b.example.com", false);
        assertOverlap("broker-$(nodeId).a.example.com", "broker-$(nodeId).a.example.com", true);
        assertOverlap("broker-$(nodeId).example.com", "broker-1$(nodeId).example.com", true);   // broker-12
        assertOverlap("b$(nodeId).example.com", "b$(nodeId)1.example.com", true);             // b21
        assertOverlap("b$(nodeId).x.com", "b$(nodeId)x.x.com", false);
        assertOverlap("$(nodeId).x.com", "a$(nodeId).x.com", false);
        assertOverlap("broker-$(nodeId).kafka.example.com", "broker-3.kafka.example.com", true);
        assertOverlap("broker-$(nodeId).kafka.example.com", "broker-x.kafka.example.com", false);
        assertOverlap("bootstrap.kafka.example.com", "bootstrap.kafka.example.com", true);
        assertOverlap("bootstrap.kafka.example.com", "bootstrap.other.example.com", false);
        // A pattern whose digits run into a suffix of digits: a1b vs a$(nodeId)b, a$(nodeId)1b.
        assertOverlap("a$(nodeId)b", "a$(nodeId)1b", true);
        assertOverlap("a-$(nodeId)-b", "a-$(nodeId)b", false);
    }


    private static void assertOverlap(String a, String b, boolean expected) {
        assertThat(HostPattern.parse(a).overlaps(HostPattern.parse(b))).as(a + " / " + b).isEqualTo(expected);
        assertThat(HostPattern.parse(b).overlaps(HostPattern.parse(a))).as(b + " / " + a).isEqualTo(expected);
    }
}
