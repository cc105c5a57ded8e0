package io.sluice.proxy.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
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

/**
 * Garbage, oversized frames, unknown APIs and half-sent requests on raw sockets: each such connection is
 * closed (and counted), and a real client on another connection keeps working throughout.
 */
@ExtendWith(KafkaClusterExtension.class)
class BadInputTest {

    static KafkaCluster cluster;
    static ProxyFixture proxy;
    static Admin healthyClient;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                network:
                  maxFrameBytes: 1048576
                """);
        healthyClient = Admin.create(proxy.clientConfig());
    }

    @AfterAll
    static void stop() {
        healthyClient.close();
        proxy.close();
    }

    @AfterEach
    void otherClientsKeepWorking() throws Exception {
        assertThat(healthyClient.describeCluster().nodes().get()).isNotEmpty();
    }

    @Test
    void frameLargerThanTheLimitClosesTheConnectionBeforeTheBodyArrives() throws Exception {
        double before = proxy.metric("sluice_client_connections_rejected_total", "reason=\"frame_too_large\"");
        try (Socket socket = connect()) {
            new DataOutputStream(socket.getOutputStream()).writeInt(2 * 1048576);
            assertClosedByProxy(socket);
        }
        assertThat(proxy.metric("sluice_client_connections_rejected_total", "reason=\"frame_too_large\"")).isEqualTo(before + 1);
    }

    @Test
    void asciiGarbageIsReadAsAnAbsurdSizeAndRejected() throws Exception {
        try (Socket socket = connect()) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            assertClosedByProxy(socket);
        }
    }

    @Test
    void negativeFrameSizeIsMalformed() throws Exception {
        double before = proxy.metric("sluice_client_connections_rejected_total", "reason=\"malformed\"");
        try (Socket socket = connect()) {
            new DataOutputStream(socket.getOutputStream()).writeInt(-5);
            assertClosedByProxy(socket);
        }
        assertThat(proxy.metric("sluice_client_connections_rejected_total", "reason=\"malformed\"")).isEqualTo(before + 1);
    }

    @Test
    void frameTooShortForARequestHeaderIsMalformed() throws Exception {
        try (Socket socket = connect()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(3);
            out.write(new byte[] { 1, 2, 3 });
            assertClosedByProxy(socket);
        }
    }

    @Test
    void truncatedHeaderInsideAFrameIsMalformed() throws Exception {
        try (Socket socket = connect()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // Metadata v12 header claims a 200-byte client id the frame does not contain.
            out.writeInt(12);
            out.writeShort(ApiKeys.METADATA.id);
            out.writeShort(12);
            out.writeInt(1);
            out.writeShort(200);
            out.writeShort(0);
            assertClosedByProxy(socket);
        }
    }

    @Test
    void unknownApiKeyClosesTheConnection() throws Exception {
        double before = proxy.metric("sluice_client_connections_rejected_total", "reason=\"unsupported_api\"");
        try (Socket socket = connect()) {
            writeHeaderOnly(socket, (short) 9999, (short) 0, 7);
            assertClosedByProxy(socket);
        }
        assertThat(proxy.metric("sluice_client_connections_rejected_total", "reason=\"unsupported_api\"")).isEqualTo(before + 1);
    }

    @Test
    void unsupportedVersionOfAKnownApiClosesTheConnection() throws Exception {
        try (Socket socket = connect()) {
            writeHeaderOnly(socket, ApiKeys.METADATA.id, (short) 99, 7);
            assertClosedByProxy(socket);
        }
    }

    @Test
    void apiVersionsOfAnUnknownVersionIsAnsweredInV0WithTheVersionsWeSpeak() throws Exception {
        try (Socket socket = connect()) {
            writeHeaderOnly(socket, ApiKeys.API_VERSIONS.id, (short) 99, 42);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
            assertThat(new ResponseHeaderData(reader, (short) 0).correlationId()).isEqualTo(42);
            ApiVersionsResponseData response = new ApiVersionsResponseData(reader, (short) 0);
            assertThat(response.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(response.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion()).isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
        }
    }

    @Test
    void apiVersionsOfAnUnknownVersionIsAnsweredAfterTheResponsesToEarlierRequests() throws Exception {
        String topic = "empty-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(healthyClient, List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            // The broker holds a Fetch on an empty partition for its maxWaitMs; the ApiVersions answer must wait too.
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(1500).setMinBytes(1).setMaxBytes(1 << 20)
                    .setSessionId(0).setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20)))));
            byte[] fetchFrame = wire.frame(ApiKeys.FETCH, (short) 12, fetch);
            ByteBuffer both = ByteBuffer.allocate(fetchFrame.length + 14);
            both.put(fetchFrame);
            // An ApiVersions header of version 99, which no one can serialise: by hand, correlation id 1000.
            both.putInt(10).putShort(ApiKeys.API_VERSIONS.id).putShort((short) 99).putInt(1000).putShort((short) -1);
            wire.sendRaw(both.array());
            DataInputStream in = new DataInputStream(wire.socket().getInputStream());
            assertThat(List.of(nextCorrelationId(in), nextCorrelationId(in))).containsExactly(1, 1000);
        }
    }

    @Test
    void clientDisconnectingMidRequestAffectsNoOne() throws Exception {
        try (Socket socket = connect()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(500);
            out.writeShort(ApiKeys.METADATA.id);
            out.writeShort(12);
            out.flush();
        }
    }

    @Test
    void apiVersionsAdvertisesOnlyVersionsTheProxyCanDecode() throws Exception {
        // A real handshake through the proxy: every advertised range lies within kafka-clients' own.
        try (Socket socket = connect()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            var header = new org.apache.kafka.common.message.RequestHeaderData()
                    .setRequestApiKey(ApiKeys.API_VERSIONS.id).setRequestApiVersion((short) 3).setCorrelationId(5).setClientId("raw");
            var request = new org.apache.kafka.common.message.ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1");
            var cache = new org.apache.kafka.common.protocol.ObjectSerializationCache();
            short hv = ApiKeys.API_VERSIONS.requestHeaderVersion((short) 3);
            int size = header.size(cache, hv) + request.size(cache, (short) 3);
            ByteBuffer buf = ByteBuffer.allocate(size);
            ByteBufferAccessor writer = new ByteBufferAccessor(buf);
            header.write(writer, cache, hv);
            request.write(writer, cache, (short) 3);
            out.writeInt(size);
            out.write(buf.array());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
            new ResponseHeaderData(reader, (short) 0);
            ApiVersionsResponseData response = new ApiVersionsResponseData(reader, (short) 3);
            assertThat(response.errorCode()).isZero();
            // Passthrough offers Fetch without KIP-951 leader hints, so Fetch responses stay opaque.
            assertThat(response.apiKeys().find(ApiKeys.FETCH.id).maxVersion()).isEqualTo((short) 15);
            assertThat(response.apiKeys()).isNotEmpty().allSatisfy(v -> {
                assertThat(ApiKeys.hasId(v.apiKey())).isTrue();
                assertThat(v.maxVersion()).isLessThanOrEqualTo(ApiKeys.forId(v.apiKey()).latestVersion(true));
                assertThat(v.minVersion()).isGreaterThanOrEqualTo(ApiKeys.forId(v.apiKey()).oldestVersion());
            });
        }
    }

    /** Reads one response frame and returns its correlation id, the first field of every response header. */
    private static int nextCorrelationId(DataInputStream in) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return ByteBuffer.wrap(body).getInt();
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", proxy.bootstrapPort());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void writeHeaderOnly(Socket socket, short apiKey, short version, int correlationId) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(10);
        out.writeShort(apiKey);
        out.writeShort(version);
        out.writeInt(correlationId);
        out.writeShort(-1);
        out.flush();
    }

    private static void assertClosedByProxy(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            int read;
            do {
                read = in.read();
            } while (read != -1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the proxy did not close the connection", e);
        } catch (IOException e) {
            // A reset is a close too.
            assertThat(e.getMessage()).containsAnyOf("reset", "closed", "Broken pipe");
        }
    }
}
