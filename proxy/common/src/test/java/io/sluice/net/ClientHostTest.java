package io.sluice.net;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientHostTest {

    @Test
    void ipv6AddressesInOneSlash64AreOneHostAndIpv4AddressesAreThemselves() throws Exception {
        assertThat(ClientHost.key(InetAddress.getByName("2001:db8:1:2::1")))
                .isEqualTo(ClientHost.key(InetAddress.getByName("2001:db8:1:2:ffff:eeee:dddd:cccc")))
                .isEqualTo(InetAddress.getByName("2001:db8:1:2::"));
        assertThat(ClientHost.key(InetAddress.getByName("2001:db8:1:3::1"))).isNotEqualTo(ClientHost.key(InetAddress.getByName("2001:db8:1:2::1")));
        assertThat(ClientHost.key(InetAddress.getByName("192.0.2.7"))).isEqualTo(InetAddress.getByName("192.0.2.7"));
    }
}
