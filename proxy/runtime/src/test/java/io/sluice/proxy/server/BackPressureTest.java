package io.sluice.proxy.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that asks for far more than it reads: the proxy must stop reading from the broker instead of
 * buffering the difference, and deliver everything, in order, once the client reads again.
 */
@ExtendWith(KafkaClusterExtension.class)
class BackPressureTest {

    private static final int FETCHES = 40;
    private static final int FETCH_BYTES = 1_048_576;
    private static final short FETCH_VERSION = 12;

    @Test
    void slowClientPausesBrokerReadsAndLosesNothing(KafkaCluster cluster) throws Exception {
        String topic = "slow-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 10), new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[1024];
            for (int i = 0; i < 4096; i++) {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }

        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers());
             Socket socket = new Socket()) {
            socket.setReceiveBufferSize(64 * 1024);
            socket.connect(new InetSocketAddress("127.0.0.1", proxy.bootstrapPort()));
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (int i = 0; i < FETCHES; i++) {
                writeFetch(out, topic, i);
            }
            out.flush();

            // The broker could answer ~40 MiB; the proxy may hold only about one response plus its write-buffer limit.
            double fromBroker = settledBytesFromBroker(proxy);
            double toClient = proxy.metric("sluice_bytes_total", "direction=\"to_client\"");
            assertThat(fromBroker).as("bytes read from the broker while the client is not reading").isLessThan(FETCHES * FETCH_BYTES / 4.0);
            assertThat(fromBroker - toClient).as("bytes held in the proxy").isLessThan(8.0 * FETCH_BYTES);

            DataInputStream in = new DataInputStream(socket.getInputStream());
            socket.setSoTimeout(30_000);
            for (int i = 0; i < FETCHES; i++) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                int correlationId = new ResponseHeaderData(new ByteBufferAccessor(ByteBuffer.wrap(frame)), ApiKeys.FETCH.responseHeaderVersion(FETCH_VERSION))
                        .correlationId();
                assertThat(correlationId).isEqualTo(i);
                assertThat(frame.length).isGreaterThan(FETCH_BYTES / 2);
            }
        }
    }

    private static void writeFetch(DataOutputStream out, String topic, int correlationId) throws IOException {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.FETCH.id).setRequestApiVersion(FETCH_VERSION)
                .setCorrelationId(correlationId).setClientId("slow-reader");
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(FETCH_BYTES)
                .setSessionId(0).setSessionEpoch(-1);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(FETCH_BYTES))));
        ObjectSerializationCache cache = new ObjectSerializationCache();
        short headerVersion = ApiKeys.FETCH.requestHeaderVersion(FETCH_VERSION);
        int size = header.size(cache, headerVersion) + fetch.size(cache, FETCH_VERSION);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        ByteBufferAccessor writer = new ByteBufferAccessor(buffer);
        header.write(writer, cache, headerVersion);
        fetch.write(writer, cache, FETCH_VERSION);
        out.writeInt(size);
        out.write(buffer.array());
    }

    /** Waits until the proxy's count of bytes read from the broker stops growing, and returns it. */
    private static double settledBytesFromBroker(ProxyFixture proxy) throws InterruptedException {
        double last = -1;
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(500);
            double now = proxy.metric("sluice_bytes_total", "direction=\"from_broker\"");
            if (now > 0 && now == last) {
                return now;
            }
            last = now;
        }
        throw new AssertionError("the proxy kept reading from the broker while the client read nothing (" + last + " bytes)");
    }
}
