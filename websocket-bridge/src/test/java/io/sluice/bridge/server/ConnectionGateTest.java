package io.sluice.bridge.server;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.sluice.bridge.config.ConnectionsConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate's arithmetic with a clock the test moves: refill, per-/64 counting, and what a release gives back. */
class ConnectionGateTest {

    private final AtomicLong now = new AtomicLong();

    private ConnectionGate gate(int perIp, double rate, int burst) {
        return new ConnectionGate(new ConnectionsConfig(null, 4096, 8192, 100, perIp, 100, 100, rate, burst, null, null, 0), now::get);
    }

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void theBucketRefillsAtTheConfiguredRateUpToItsSize() throws Exception {
        ConnectionGate gate = gate(100, 2, 3);
        InetAddress a = ip("192.0.2.1");
        for (int i = 0; i < 3; i++) {
            assertThat(gate.accept(a, true)).isNull();
        }
        assertThat(gate.accept(a, true)).isEqualTo(ConnectionGate.RATE_PER_IP);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(gate.accept(a, true)).as("one token after 0.5 s at 2/s").isNull();
        assertThat(gate.accept(a, true)).isEqualTo(ConnectionGate.RATE_PER_IP);
        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        for (int i = 0; i < 3; i++) {
            assertThat(gate.accept(a, true)).isNull();
        }
        assertThat(gate.accept(a, true)).as("never more than the burst").isEqualTo(ConnectionGate.RATE_PER_IP);
        assertThat(gate.accept(ip("192.0.2.2"), true)).as("another address has its own bucket").isNull();
        assertThat(gate.accept(a, false)).as("a trusted proxy is not limited per address").isNull();
    }

    @Test
    void ipv6AddressesOfOneSlash64ShareTheirLimitsAndReleasesGiveBack() throws Exception {
        ConnectionGate gate = gate(2, 1000, 1000);
        assertThat(gate.accept(ip("2001:db8:1:2::1"), true)).isNull();
        assertThat(gate.accept(ip("2001:db8:1:2:ffff::9"), true)).isNull();
        assertThat(gate.accept(ip("2001:db8:1:2::77"), true)).isEqualTo(ConnectionGate.MAX_CONNECTIONS_PER_IP);
        assertThat(gate.accept(ip("2001:db8:1:3::1"), true)).as("the next /64").isNull();
        assertThat(gate.connections()).isEqualTo(3);
        assertThat(gate.handshakes()).isEqualTo(3);

        gate.handshakeEnded(ip("2001:db8:1:2::1"), true);
        gate.closed(ip("2001:db8:1:2::1"), true);
        assertThat(gate.connections()).isEqualTo(2);
        assertThat(gate.handshakes()).isEqualTo(2);
        assertThat(gate.accept(ip("2001:db8:1:2::77"), true)).isNull();
    }
}
