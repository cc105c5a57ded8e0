package io.sluice.proxy.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.MemoryProbe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Peers that send and never read. Each streams requests the proxy answers itself (ApiVersions at a version it does not
 * speak: 14 bytes in, 20 out) through a socket with a tiny receive window and never reads a byte. Before the proxy
 * stopped reading a client whose answers pile up, four such sockets filled its heap in 40 s and wedged it.
 */
@ExtendWith(KafkaClusterExtension.class)
class NonReadingClientsTest {

    private static final int ATTACKERS = 4;
    /** What each attacker tries to push: on a proxy that reads regardless, its answers alone are 1.4 times this. */
    private static final int ATTEMPT_BYTES = 48 * 1024 * 1024;
    /** An attacker whose writes make no progress this long is considered stopped by the proxy. */
    private static final Duration STALLED = Duration.ofSeconds(2);
    private static final long MIB = 1024 * 1024;

    @Test
    void clientsThatNeverReadStopBeingReadPinAFewMegabytesEachAndAreClosedWhileAnHonestClientCarriesOn(KafkaCluster cluster) throws Exception {
        String topic = "honest-" + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), List.of(new NewTopic(topic, 1, (short) 1)));
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                network:
                  maxUnwritableTime: 3s
                """)) {
            roundTrip(proxy, topic, 0);
            long before = MemoryProbe.retainedBytes();

            List<SocketChannel> attackers = new ArrayList<>();
            for (int i = 0; i < ATTACKERS; i++) {
                attackers.add(nonReadingSocket(proxy.bootstrapPort()));
            }
            long[] sent = pushUntilStalled(attackers);
            double queued = proxy.metric("sluice_client_outbound_queued_bytes", "");
            long during = MemoryProbe.retainedBytes();
            double readFromAttackers = proxy.metric("sluice_bytes_total", "direction=\"from_client\"");
            System.out.printf("attackers sent %s bytes; the proxy read %.1f MiB of them and queued %.1f MiB of answers; memory %s before, %s during%n",
                    java.util.Arrays.toString(sent), readFromAttackers / MIB, queued / MIB, MemoryProbe.describe(before), MemoryProbe.describe(during));

            // An honest client works while the attackers hold their sockets open.
            roundTrip(proxy, topic, 1);

            assertThat(readFromAttackers).as("bytes the proxy read (attackers sent %s)", java.util.Arrays.toString(sent))
                    .isLessThan(ATTACKERS * 8.0 * MIB);
            assertThat(during - before).as("memory the attack pinned (%s before, %s during)", MemoryProbe.describe(before), MemoryProbe.describe(during))
                    .isLessThan(ATTACKERS * 8 * MIB);

            // Past network.maxUnwritableTime, each attacker is closed: what it finds after reading what was queued is the end.
            // The attackers keep sending meanwhile, as such a peer does: one that stopped could see the proxy's queue
            // drain into a socket buffer the kernel grew, the proxy read again and find nothing more, and sit there as an
            // idle connection, never unwritable for long (it happened once in CI, after the test had stopped sending).
            ByteBuffer more = requests(64 * 1024);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                for (SocketChannel attacker : attackers) {
                    try {
                        attacker.write(more.duplicate());
                    } catch (IOException closedByTheProxy) {
                        // This one is done.
                    }
                }
                return proxy.metric("sluice_client_connections_rejected_total", "reason=\"client_not_reading\"") >= ATTACKERS;
            });
            for (SocketChannel attacker : attackers) {
                assertThat(drainsToEnd(attacker)).as("the proxy closed the attacker's socket").isTrue();
                attacker.close();
            }
            roundTrip(proxy, topic, 2);
        }
    }

    /**
     * A peer that sends requests until its unread answers fill the socket, then goes quiet, is closed once nothing has
     * been read or written for network.connectionsMaxIdle. maxUnwritableTime is off here, so only the idle timer can
     * close it: whether its answers still wait in the proxy's queue or drained into the kernel's send buffer (which
     * loopback grows), nothing moves on the connection.
     */
    @Test
    void aClientThatFilledItsSocketAndWentQuietIsClosedOnceIdle(KafkaCluster cluster) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                network:
                  maxUnwritableTime: 0s
                  connectionsMaxIdle: 2s
                """)) {
            SocketChannel quiet = nonReadingSocket(proxy.bootstrapPort());
            ByteBuffer burst = requests(2 * 1024 * 1024);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (burst.hasRemaining() && System.nanoTime() < deadline) {
                if (quiet.write(burst) == 0) {
                    Thread.sleep(5);
                }
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> proxy.metric("sluice_client_connections_rejected_total", "reason=\"idle\"") >= 1);
            assertThat(drainsToEnd(quiet)).as("the proxy closed the quiet peer's socket").isTrue();
            quiet.close();
        }
    }

    private static SocketChannel nonReadingSocket(int port) throws IOException {
        SocketChannel channel = SocketChannel.open();
        // Set before connecting, so the window the peer is offered is small from the start.
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
        channel.connect(new InetSocketAddress("127.0.0.1", port));
        channel.configureBlocking(false);
        return channel;
    }

    /** Writes unsupported-version ApiVersions requests on every attacker until none makes progress; returns bytes sent. */
    private static long[] pushUntilStalled(List<SocketChannel> attackers) throws IOException, InterruptedException {
        ByteBuffer chunk = requests(64 * 1024);
        long[] sent = new long[attackers.size()];
        long[] lastProgress = new long[attackers.size()];
        java.util.Arrays.fill(lastProgress, System.nanoTime());
        boolean anyActive = true;
        while (anyActive) {
            anyActive = false;
            for (int i = 0; i < attackers.size(); i++) {
                if (sent[i] >= ATTEMPT_BYTES || System.nanoTime() - lastProgress[i] > STALLED.toNanos()) {
                    continue;
                }
                anyActive = true;
                ByteBuffer b = chunk.duplicate();
                b.position((int) (sent[i] % chunk.capacity()));
                int n;
                try {
                    n = attackers.get(i).write(b);
                } catch (IOException closedByTheProxy) {
                    // Already past maxUnwritableTime: the proxy stopped reading it long before.
                    lastProgress[i] = 0;
                    continue;
                }
                if (n > 0) {
                    sent[i] += n;
                    lastProgress[i] = System.nanoTime();
                }
            }
            Thread.sleep(1);
        }
        return sent;
    }

    /** Back-to-back ApiVersions requests at version 127: the proxy answers each itself, in v0, with UNSUPPORTED_VERSION. */
    private static ByteBuffer requests(int size) {
        int frame = 14;
        ByteBuffer b = ByteBuffer.allocate(size - size % frame);
        int correlationId = 0;
        while (b.hasRemaining()) {
            b.putInt(frame - 4).putShort(ApiKeys.API_VERSIONS.id).putShort((short) 127).putInt(++correlationId).putShort((short) -1);
        }
        return b.flip();
    }

    /** Reads whatever the proxy still sends; true when the stream then ends (or is reset), false if it stays open. */
    private static boolean drainsToEnd(SocketChannel channel) throws IOException, InterruptedException {
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            sink.clear();
            int n;
            try {
                n = channel.read(sink);
            } catch (IOException reset) {
                return true;
            }
            if (n < 0) {
                return true;
            }
            if (n == 0) {
                Thread.sleep(10);
            }
        }
        return false;
    }

    private static void roundTrip(ProxyFixture proxy, String topic, int n) throws Exception {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "honest-" + n)).get();
        }
        assertThat(KafkaReads.fromStart(proxy.clientConfig(), topic, n + 1, new StringDeserializer(), new StringDeserializer()))
                .extracting(r -> r.value()).contains("honest-" + n);
    }
}
