package io.sluice.bridge.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.web.StaticContent;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients that send and never read (issue 20), one test per stage of a connection: plain HTTP before the upgrade,
 * WebSocket before {@code connect}, and an authenticated subscriber whose recoveries would queue without bound. Each
 * attacker is a raw socket with a tiny receive window that writes for a bounded number of rounds and never reads.
 * Asserted: the node's heap (after a full GC) plus Netty's direct memory grows by less than {@link #BOUND} for the
 * {@link #ATTACKERS} together, an honest client (the Java one, and Python's {@code websockets}) is served throughout,
 * and every attacker's socket is closed by the node for being above the high-water mark for
 * {@code outbound.maxSlowTime} (the handshake and connect deadlines are set far beyond the test's waits, so nothing
 * else can have closed them).
 */
@ExtendWith(KafkaClusterExtension.class)
class NonReadingClientsTest {

    private static final int ATTACKERS = 4;
    /**
     * What the attackers together may make the node hold, as measured here: docs/bridge.md states at most about 1.5 MiB
     * a connection before {@code connect} and {@code outbound.maxBytes} (4 MiB here) plus about 1.5 MiB after it, so
     * under 24 MiB for the four; the rest is the measurement's own noise: the broker runs in this JVM (its heap after a
     * full GC moves by about 30 MiB from one sample to the next) and Netty's pool takes 4 MiB chunks for each event
     * loop that first allocates. Before issue 20 these loops grew the node by several hundred MiB.
     */
    private static final long BOUND = 64L * 1024 * 1024;
    /**
     * About 6 s of writing, twice maxSlowTime plus the close's grace: long enough for the node to close every attacker
     * while they still write, and enough offered (up to 128 MiB from the four) to break {@link #BOUND} twice over
     * without back-pressure.
     */
    private static final int ROUNDS = 500;
    /** What an attacker offers the node per round at most: it writes until the node stops taking or this much went. */
    private static final int BYTES_PER_ROUND = 64 * 1024;
    private static final Duration ROUND_PAUSE = Duration.ofMillis(10);
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(60);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static BridgeFixture bridge(String topic) {
        return BridgeFixture.on(cluster.getBootstrapServers(), "node-a")
                .server("socketSendBufferBytes: 8192")
                .auth("connectTimeout: 300s")
                .serving(StaticContent.fromClasspath(StaticContent.CLIENT_JS))
                .start("""
                        topics: %s
                        outbound:
                          maxBytes: 4194304
                          maxSlowTime: 3s
                          slowCloseGrace: 1s
                        connections:
                          handshakeTimeout: 300s
                        """.formatted(topic));
    }

    @Test
    void unauthenticatedClientsPipeliningStaticGetsWithoutReadingPinAFewMegabytesAndAreClosed() throws Exception {
        String topic = kafka.createTopic(1);
        byte[] get = "GET /sluice-bridge.js HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        try (BridgeFixture bridge = bridge(topic)) {
            // Closed either by Netty's HTTP codec (more than 128 requests waiting for their answers) or by maxSlowTime.
            attack(bridge, topic, port -> Attacker.open(port, new byte[0]), get, false);
        }
    }

    @Test
    void unauthenticatedWebSocketClientsSendingPingsWithoutReadingPinAFewMegabytesAndAreClosed() throws Exception {
        String topic = kafka.createTopic(1);
        byte[] pings = new byte[0];
        for (int i = 0; i < 64; i++) {
            pings = concat(pings, Attacker.frame(0x9, new byte[125]));
        }
        try (BridgeFixture bridge = bridge(topic)) {
            attack(bridge, topic, port -> Attacker.upgraded(port, new byte[0]), pings, true);
        }
    }

    /**
     * Authenticated readers that subscribe to overlapping prefixes, each recovering the whole partition from
     * {@code seq: -1}: every recovery is a Kafka log read of a few MB, and none of it is read by the client.
     */
    @Test
    void authenticatedClientsRecoveringOverlappingPrefixesWithoutReadingPinAtMostMaxBytesAndAreClosed() throws Exception {
        String topic = kafka.createTopic(1);
        String key = "a/b/c/d/e/f/g/h/x";
        String pad = "x".repeat(2000);
        String token = TestAuthenticator.token("mallory", topic + "/*", "");
        try (BridgeFixture bridge = bridge(topic); WsClient probe = WsClient.connected(bridge.port(), token)) {
            String epoch = probe.subscribe("/" + topic + "/*").get("positions").get(0).get("epoch").asText();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                values.add("{\"n\": " + i + ", \"pad\": \"" + pad + "\"}");
            }
            kafka.sendAll(topic, key, values);
            byte[] requests = Attacker.text("{\"type\":\"connect\",\"id\":1,\"token\":\"" + token + "\"}");
            String prefix = "/" + topic + "/";
            for (int level = 0; level < 9; level++) {
                requests = concat(requests, Attacker.text("{\"type\":\"subscribe\",\"id\":" + (level + 2) + ",\"endpoint\":\"" + prefix
                        + "*\",\"recover\":[{\"epoch\":\"" + epoch + "\",\"seq\":-1}]}"));
                prefix += key.split("/")[level] + "/";
            }
            byte[] opening = requests;
            // The requests go once, at the start; then the attackers only hold their sockets (a ping now and then).
            attack(bridge, topic, port -> Attacker.upgraded(port, opening), Attacker.frame(0x9, new byte[0]), true);
        }
    }

    /**
     * Opens the attackers, has each send {@code repeated} for {@link #ROUNDS} rounds (as much of it as the node takes,
     * never blocking), measuring the node's memory meanwhile, while an honest client is served; then waits for the
     * node to close every attacker.
     */
    private void attack(BridgeFixture bridge, String topic, Function<Integer, Attacker> open, byte[] repeated, boolean closedAsSlow)
            throws Exception {
        String honestToken = TestAuthenticator.token("honest", topic + "/*", topic + "/*");
        double closedBefore = bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"");
        try (WsClient honest = WsClient.connected(bridge.port(), honestToken)) {
            honest.subscribe("/" + topic + "/java");
            long before = Math.max(usedMemory(), Math.max(usedMemory(), usedMemory()));
            List<Attacker> attackers = new ArrayList<>();
            for (int i = 0; i < ATTACKERS; i++) {
                attackers.add(open.apply(bridge.port()));
            }
            CompletableFuture<JsonNode> python = CompletableFuture.supplyAsync(() -> PythonClients.run("ws_hostile.py",
                    Duration.ofSeconds(120), Map.of("TOKEN", honestToken), "honest", "--url", "ws://127.0.0.1:" + bridge.port() + "/ws",
                    "--topic", topic, "--count", "5").ok());
            long peak = 0;
            long written = 0;
            for (int round = 0; round < ROUNDS; round++) {
                for (Attacker a : attackers) {
                    written += a.offer(repeated);
                }
                if (round % 50 == 49) {
                    peak = Math.max(peak, usedMemory() - before);
                    if (peak > 2 * BOUND) {
                        break;
                    }
                    long live = kafka.send(topic, "java", "still served " + round);
                    assertThat(honest.expect("message").get("seq").asLong()).as("the honest client is served").isEqualTo(live);
                }
                Thread.sleep(ROUND_PAUSE.toMillis());
            }
            peak = Math.max(peak, usedMemory() - before);
            assertThat(written).as("the attackers got bytes in").isPositive();
            assertThat(peak).as("growth of heap + direct memory with %d non-reading attackers", ATTACKERS).isLessThan(BOUND);

            JsonNode honestPython = python.join();
            assertThat(honestPython.get("received")).hasSize(5);
            assertThat(honestPython.get("unparseable")).isEmpty();

            for (Attacker a : attackers) {
                await().atMost(CLOSED_WITHIN).until(a::closedByPeer);
            }
            if (closedAsSlow) {
                assertThat(bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") - closedBefore)
                        .as("closed for being above the high-water mark for outbound.maxSlowTime").isEqualTo(ATTACKERS);
            }
            long live = kafka.send(topic, "java", "after");
            assertThat(honest.expect("message").get("seq").asLong()).isEqualTo(live);
            for (Attacker a : attackers) {
                a.close();
            }
        }
    }

    /** Heap after a full GC plus the direct memory in use in Netty's pool. */
    private static long usedMemory() {
        System.gc();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        // Bytes in use in Netty's pool (direct and heap arenas), not the 4 MiB chunks it reserved: the bridge's buffers.
        long pooled = 0;
        for (PoolArenaMetric arena : PooledByteBufAllocator.DEFAULT.metric().directArenas()) {
            pooled += arena.numActiveBytes();
        }
        System.out.printf("memory: heap %,d pooled in use %,d (direct reserved %,d)%n", heap, pooled, PlatformDependent.usedDirectMemory());
        return heap + pooled;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** A raw TCP client with a 4 KiB receive window that writes without blocking and does not read until the end. */
    private static final class Attacker implements AutoCloseable {
        private final SocketChannel channel;
        private ByteBuffer pending = ByteBuffer.allocate(0);

        private Attacker(SocketChannel channel) {
            this.channel = channel;
        }

        /** A connection that has sent {@code first}. */
        static Attacker open(int port, byte[] first) {
            try {
                SocketChannel ch = SocketChannel.open();
                ch.socket().setReceiveBufferSize(4096);
                ch.connect(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                Attacker a = new Attacker(ch);
                a.pending = ByteBuffer.wrap(first);
                return a;
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        /** A connection upgraded to WebSocket (the 101 read, as a client must), then having sent {@code first}. */
        static Attacker upgraded(int port, byte[] first) {
            try {
                SocketChannel ch = SocketChannel.open();
                ch.socket().setReceiveBufferSize(4096);
                ch.connect(new InetSocketAddress("127.0.0.1", port));
                ch.write(ByteBuffer.wrap(upgrade()));
                StringBuilder response = new StringBuilder();
                ByteBuffer one = ByteBuffer.allocate(1);
                while (!response.toString().endsWith("\r\n\r\n")) {
                    one.clear();
                    if (ch.read(one) < 0) {
                        throw new AssertionError("closed during the upgrade: " + response);
                    }
                    response.append((char) one.get(0));
                }
                assertThat(response.toString()).startsWith("HTTP/1.1 101");
                ch.configureBlocking(false);
                Attacker a = new Attacker(ch);
                a.pending = ByteBuffer.wrap(first);
                return a;
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        static byte[] upgrade() {
            return ("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }

        static byte[] text(String json) {
            return frame(0x1, json.getBytes(StandardCharsets.UTF_8));
        }

        /** A final, masked client frame. */
        static byte[] frame(int opcode, byte[] payload) {
            int header = payload.length < 126 ? 2 : payload.length < 65536 ? 4 : 10;
            byte[] frame = new byte[header + 4 + payload.length];
            frame[0] = (byte) (0x80 | opcode);
            if (header == 2) {
                frame[1] = (byte) (0x80 | payload.length);
            }
            else if (header == 4) {
                frame[1] = (byte) (0x80 | 126);
                frame[2] = (byte) (payload.length >> 8);
                frame[3] = (byte) payload.length;
            }
            else {
                frame[1] = (byte) (0x80 | 127);
                for (int i = 0; i < 8; i++) {
                    frame[2 + i] = (byte) ((long) payload.length >> (56 - 8 * i));
                }
            }
            byte[] mask = new byte[4];
            ThreadLocalRandom.current().nextBytes(mask);
            System.arraycopy(mask, 0, frame, header, 4);
            for (int i = 0; i < payload.length; i++) {
                frame[header + 4 + i] = (byte) (payload[i] ^ mask[i % 4]);
            }
            return frame;
        }

        /** Writes what is pending, then {@code bytes} once the previous ones went, as far as the node takes them. */
        long offer(byte[] bytes) {
            try {
                long written = 0;
                while (written < BYTES_PER_ROUND) {
                    if (!pending.hasRemaining()) {
                        pending = ByteBuffer.wrap(bytes);
                    }
                    int n = channel.write(pending);
                    if (n == 0) {
                        break;
                    }
                    written += n;
                }
                return written;
            }
            catch (IOException closed) {
                return 0;
            }
        }

        /** Drains what the node had queued: true once it reaches the end of the stream (or a reset). */
        boolean closedByPeer() {
            try {
                ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
                for (int i = 0; i < 1000; i++) {
                    sink.clear();
                    int n = channel.read(sink);
                    if (n < 0) {
                        return true;
                    }
                    if (n == 0) {
                        return false;
                    }
                }
                return false;
            }
            catch (IOException reset) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
