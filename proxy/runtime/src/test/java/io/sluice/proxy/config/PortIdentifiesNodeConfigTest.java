package io.sluice.proxy.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import io.sluice.config.HostPort;

class PortIdentifiesNodeConfigTest {

    private static final HostPort BOOTSTRAP = HostPort.parse("proxy.example.com:9192");

    @Test
    void withoutRangesEveryNodeIdSitsAtStartPlusId() {
        PortIdentifiesNodeConfig ports = PortIdentifiesNodeConfig.of(BOOTSTRAP);

        assertThat(ports.nodeStartPort()).isEqualTo(9193);
        assertThat(ports.portForNode(0)).isEqualTo(OptionalInt.of(9193));
        assertThat(ports.portForNode(7)).isEqualTo(OptionalInt.of(9200));
        assertThat(ports.portForNode(65535 - 9193)).isEqualTo(OptionalInt.of(65535));
        assertThat(ports.portForNode(65535 - 9193 + 1)).isEmpty();
        assertThat(ports.portForNode(-1)).isEmpty();
        assertThat(ports.portForNode(Integer.MAX_VALUE)).isEmpty();
    }

    @Test
    void withRangesPortsRunConsecutivelyThroughTheRangesInListedOrder() {
        PortIdentifiesNodeConfig ports = new PortIdentifiesNodeConfig(BOOTSTRAP, null, 9300, List.of(
                new NodeIdRange("controllers", 100, 101),
                new NodeIdRange("brokers", 0, 2)));

        assertThat(ports.portForNode(100)).isEqualTo(OptionalInt.of(9300));
        assertThat(ports.portForNode(101)).isEqualTo(OptionalInt.of(9301));
        assertThat(ports.portForNode(0)).isEqualTo(OptionalInt.of(9302));
        assertThat(ports.portForNode(2)).isEqualTo(OptionalInt.of(9304));
        assertThat(ports.portForNode(3)).isEmpty();
        assertThat(ports.portForNode(99)).isEmpty();
        assertThat(ports.portForNode(-1)).isEmpty();
    }

    @Test
    void advertisesTheBootstrapHostByDefault() {
        PortIdentifiesNodeConfig ports = PortIdentifiesNodeConfig.of(BOOTSTRAP);

        assertThat(ports.advertisedAddress(2)).contains(new HostPort("proxy.example.com", 9195));
    }

    @Test
    void fillsTheNodeIdIntoThePattern() {
        PortIdentifiesNodeConfig ports = new PortIdentifiesNodeConfig(HostPort.parse("0.0.0.0:9192"),
                "broker-$(nodeId).example.com", 9193, List.of());

        assertThat(ports.advertisedAddress(3)).contains(new HostPort("broker-3.example.com", 9196));
    }

    @Test
    void aPortInThePatternStandsForTheFirstNodePort() {
        PortIdentifiesNodeConfig ports = new PortIdentifiesNodeConfig(HostPort.parse("0.0.0.0:9192"),
                "lb.example.com:30001", 9193, List.of(new NodeIdRange("b", 5, 7)));

        assertThat(ports.advertisedAddress(5)).contains(new HostPort("lb.example.com", 30001));
        assertThat(ports.advertisedAddress(7)).contains(new HostPort("lb.example.com", 30003));
        assertThat(ports.advertisedAddress(8)).isEqualTo(Optional.empty());
    }

    @Test
    void advertisesBracketedIpv6Hosts() {
        PortIdentifiesNodeConfig ports = new PortIdentifiesNodeConfig(HostPort.parse("[::]:9192"), "[fd00::1]", 9193, List.of());

        assertThat(ports.advertisedAddress(0)).contains(new HostPort("fd00::1", 9193));
    }
}
