package io.sluice.proxy.server;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code connectionLimits}: the connection over a virtual cluster's limit, or over one client address's, is
 * closed as it is accepted and counted by reason, while the connections already open, and those from other
 * addresses, keep working. Client addresses other than 127.0.0.1 are loopback aliases (127.0.0.2, ...).
 */
@ExtendWith(KafkaClusterExtension.class)
class ConnectionLimitsTest {

    private static final int MAX_CONNECTIONS = 8;
    private static final int MAX_PER_CLIENT_IP = 3;
    /** The healthy client's own connections (bootstrap and broker) come from 127.0.0.1. */
    private static final int HEALTHY_CLIENT_CONNECTIONS_AT_MOST = 3;

    static KafkaCluster cluster;
    static ProxyFixture proxy;
    static Admin healthyClient;

    private final List<KafkaWire> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        proxy = ProxyFixture.startWithClusterSection(cluster.getBootstrapServers(), """
                connectionLimits:
                  maxConnections: %d
                  maxConnectionsPerClientIp: %d
                """.formatted(MAX_CONNECTIONS, MAX_PER_CLIENT_IP), "");
        healthyClient = Admin.create(proxy.clientConfig());
        // Opens the client's bootstrap and broker connections now, while there is room.
        assertThat(healthyClient.describeCluster().nodes().get()).isNotEmpty();
        assertThat(healthyClient.listTopics().names().get()).isNotNull();
    }

    @AfterAll
    static void stop() {
        healthyClient.close();
        proxy.close();
    }

    @AfterEach
    void closeAndCheckTheRealClient() throws Exception {
        for (KafkaWire wire : opened) {
            wire.close();
        }
        assertThat(healthyClient.describeCluster().nodes().get()).isNotEmpty();
        await().until(() -> proxy.metric("sluice_client_connections", "") <= HEALTHY_CLIENT_CONNECTIONS_AT_MOST);
    }

    @Test
    void connectionOverThePerAddressLimitIsRefusedWhileTheOthersKeepWorking() throws Exception {
        InetAddress client = InetAddress.getByName("127.0.0.2");
        double before = refused("max_connections_per_client_ip");
        List<KafkaWire> allowed = new ArrayList<>();
        for (int i = 0; i < MAX_PER_CLIENT_IP; i++) {
            allowed.add(open(client));
            assertWorks(allowed.get(i));
        }

        KafkaWire over = open(client);

        assertThat(over.closedByPeer()).isTrue();
        assertThat(refused("max_connections_per_client_ip")).isEqualTo(before + 1);
        for (KafkaWire wire : allowed) {
            assertWorks(wire);
        }
        assertWorks(open(InetAddress.getByName("127.0.0.3")));

        // A slot freed by a close is available again.
        allowed.get(0).close();
        await().untilAsserted(() -> assertWorks(open(client)));
    }

    @Test
    void connectionOverTheVirtualClusterLimitIsRefusedWhileTheOthersKeepWorking() throws Exception {
        double before = refused("max_connections");
        double perAddressBefore = refused("max_connections_per_client_ip");
        int open = (int) proxy.metric("sluice_client_connections", "");
        List<KafkaWire> filling = new ArrayList<>();
        for (int i = open; i < MAX_CONNECTIONS; i++) {
            KafkaWire wire = open(InetAddress.getByName("127.0.1." + (10 + i)));
            assertWorks(wire);
            filling.add(wire);
        }

        KafkaWire over = open(InetAddress.getByName("127.0.1.200"));

        assertThat(over.closedByPeer()).isTrue();
        assertThat(refused("max_connections")).isEqualTo(before + 1);
        assertThat(refused("max_connections_per_client_ip")).isEqualTo(perAddressBefore);
        for (KafkaWire wire : filling) {
            assertWorks(wire);
        }
        assertThat(healthyClient.listTopics().names().get()).isNotNull();
    }

    private KafkaWire open(InetAddress from) throws IOException {
        KafkaWire wire = new KafkaWire(from, proxy.bootstrapPort());
        opened.add(wire);
        return wire;
    }

    private static void assertWorks(KafkaWire wire) throws IOException {
        ApiVersionsResponseData response = wire.call(ApiKeys.API_VERSIONS, (short) 3,
                new ApiVersionsRequestData().setClientSoftwareName("wire").setClientSoftwareVersion("1"));
        assertThat(response.errorCode()).isZero();
    }

    private static double refused(String reason) {
        return proxy.metric("sluice_client_connections_refused_total", "reason=\"" + reason + "\"");
    }
}
