package io.sluice.proxy.server;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.config.HostPort;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fetch that asks for 2 GiB: answered zero-copy by the broker, but held on the proxy's heap on its way. The proxy
 * lowers what it asks for to network.maxFetchBytes, and the consumer still makes progress.
 */
@ExtendWith(KafkaClusterExtension.class)
class FetchBytesLimitTest {

    private static final int LIMIT = 256 * 1024;
    private static final short VERSION = 12;

    @Test
    void aFetchAskingForGigabytesIsAnsweredWithAtMostTheLimitAndTheRestComesInLaterFetches(KafkaCluster cluster) throws Exception {
        String topic = "big-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 16384), new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[1024];
            for (int i = 0; i < 4096; i++) {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }

        HostPort broker = HostPort.parse(cluster.getBootstrapServers().split(",")[0]);
        try (KafkaWire direct = new KafkaWire(broker.port())) {
            assertThat(recordBytes(direct.call(ApiKeys.FETCH, VERSION, greedyFetch(topic, 0))))
                    .as("the same request sent to the broker itself returns far more than the limit").isGreaterThan(3 * 1024 * 1024);
        }
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                network:
                  maxFetchBytes: %d
                """.formatted(LIMIT));
             KafkaWire client = new KafkaWire(proxy.bootstrapPort())) {
            FetchResponseData first = client.call(ApiKeys.FETCH, VERSION, greedyFetch(topic, 0));
            int bytes = recordBytes(first);
            assertThat(bytes).as("records in the answer").isPositive().isLessThanOrEqualTo(LIMIT);

            // The consumer is not stopped: it continues from where the answer ended.
            long next = lastOffset(first) + 1;
            FetchResponseData second = client.call(ApiKeys.FETCH, VERSION, greedyFetch(topic, next));
            assertThat(recordBytes(second)).isPositive().isLessThanOrEqualTo(LIMIT);
            assertThat(MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(bytesOf(second))).batches().iterator().next().baseOffset())
                    .isEqualTo(next);
        }
    }

    private static FetchRequestData greedyFetch(String topic, long offset) {
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(Integer.MAX_VALUE)
                .setSessionId(0).setSessionEpoch(-1);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset).setPartitionMaxBytes(Integer.MAX_VALUE))));
        return fetch;
    }

    private static byte[] bytesOf(FetchResponseData response) {
        FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
        assertThat(partition.errorCode()).isZero();
        MemoryRecords records = (MemoryRecords) partition.records();
        byte[] bytes = new byte[records.sizeInBytes()];
        records.buffer().duplicate().get(bytes);
        return bytes;
    }

    private static int recordBytes(FetchResponseData response) {
        return bytesOf(response).length;
    }

    private static long lastOffset(FetchResponseData response) {
        long last = -1;
        for (var batch : MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(bytesOf(response))).batches()) {
            last = batch.lastOffset();
        }
        return last;
    }
}
