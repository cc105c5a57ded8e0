package io.sluice.filter.jwt;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.testkit.MemoryProbe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Authenticated clients that send and never read: each streams CreateTopics requests JwtAuth refuses itself (the
 * principal may not administer topics), so every answer is made in the proxy, by a filter, and none comes from the
 * broker to slow the attack down. The proxy must stop reading them once their answers pile up, hold a few MB for
 * each, close them after network.maxUnwritableTime, and keep serving a real producer meanwhile.
 */
@ExtendWith(KafkaClusterExtension.class)
class NonReadingAuthenticatedClientsTest {

    private static final String TOPIC = "nonreading-orders";
    private static final Map<String, Object> ORDERS = Map.of("topics", Map.of("nonreading-*", List.of("read", "write", "describe")));
    private static final int ATTACKERS = 4;
    private static final long ATTEMPT_BYTES = 48L * 1024 * 1024;
    private static final long MIB = 1024 * 1024;

    @Test
    void authenticatedClientsThatNeverReadAreStoppedAndClosedWhileAProducerCarriesOn(KafkaCluster cluster) throws Exception {
        try (JwtProxy jwt = JwtProxy.start(cluster, "", List.of("jwt"), """
                network:
                  maxUnwritableTime: 3s
                """);
             KafkaProducer<String, String> producer = new KafkaProducer<>(jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(10), ORDERS)),
                     new StringSerializer(), new StringSerializer())) {
            jwt.createTopics(TOPIC);
            producer.send(new ProducerRecord<>(TOPIC, "k", "before")).get();
            long before = MemoryProbe.retainedBytes();
            double readBefore = jwt.metric("sluice_bytes_total", "direction=\"from_client\"");

            List<Thread> writers = new ArrayList<>();
            List<AtomicLong> sent = new ArrayList<>();
            List<KafkaWire> attackers = new ArrayList<>();
            for (int i = 0; i < ATTACKERS; i++) {
                KafkaWire wire = KafkaWire.withReceiveBuffer(jwt.proxy.bootstrapPort(), 4096);
                assertThat(wire.authenticate(JwtProxy.token("mallory-" + i, Duration.ofMinutes(10), ORDERS), (short) 2).errorCode()).isZero();
                attackers.add(wire);
                AtomicLong counter = new AtomicLong();
                sent.add(counter);
                byte[] chunk = refusedRequests(wire, 64 * 1024);
                Thread writer = new Thread(() -> push(wire, chunk, counter), "non-reading-" + i);
                writer.setDaemon(true);
                writer.start();
                writers.add(writer);
            }
            awaitStalled(sent);
            long during = MemoryProbe.retainedBytes();
            double read = jwt.metric("sluice_bytes_total", "direction=\"from_client\"") - readBefore;

            assertThat(producer.send(new ProducerRecord<>(TOPIC, "k", "during")).get().offset()).isPositive();
            assertThat(read).as("bytes the proxy read from the attackers (they tried %d MiB each)", ATTEMPT_BYTES / MIB)
                    .isLessThan(ATTACKERS * 8.0 * MIB);
            assertThat(during - before).as("memory the attack pinned (%s before, %s during)", MemoryProbe.describe(before), MemoryProbe.describe(during))
                    .isLessThan(ATTACKERS * 8 * MIB);

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    jwt.metric("sluice_client_connections_rejected_total", "reason=\"client_not_reading\"") >= ATTACKERS);
            for (KafkaWire attacker : attackers) {
                assertThat(attacker.closedAfterDraining()).as("the proxy closed the attacker").isTrue();
                attacker.close();
            }
            for (Thread writer : writers) {
                writer.join(10_000);
            }
            assertThat(producer.send(new ProducerRecord<>(TOPIC, "k", "after")).get().offset()).isPositive();
        }
    }

    /** Back-to-back CreateTopics requests for a topic the principal may not create, framed for {@code wire}. */
    private static byte[] refusedRequests(KafkaWire wire, int size) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(size + 256);
        while (out.size() < size) {
            CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(1000);
            create.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("forbidden-topic").setNumPartitions(1).setReplicationFactor((short) 1));
            out.writeBytes(wire.frame(ApiKeys.CREATE_TOPICS, (short) 7, create));
        }
        return out.toByteArray();
    }

    /** Writes until the proxy stops taking bytes for good (the write blocks) or closes the connection. */
    private static void push(KafkaWire wire, byte[] chunk, AtomicLong sent) {
        try {
            OutputStream out = wire.socket().getOutputStream();
            while (sent.get() < ATTEMPT_BYTES) {
                out.write(chunk);
                sent.addAndGet(chunk.length);
            }
        } catch (IOException closedByTheProxy) {
            // what the test waits for
        }
    }

    /** Waits until no attacker has got a chunk through for two seconds. */
    private static void awaitStalled(List<AtomicLong> sent) throws InterruptedException {
        long total = -1;
        long stableSince = System.nanoTime();
        while (System.nanoTime() - stableSince < Duration.ofSeconds(2).toNanos()) {
            Thread.sleep(100);
            long now = sent.stream().mapToLong(AtomicLong::get).sum();
            if (now != total) {
                total = now;
                stableSince = System.nanoTime();
            }
        }
    }
}
