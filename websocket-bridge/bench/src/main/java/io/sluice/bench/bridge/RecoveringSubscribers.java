package io.sluice.bench.bridge;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Recorder;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.sluice.transport.Transport;

/**
 * The failover scenario's clients: each a {@link RecoveringClient} on one random endpoint, connected through the
 * front, and, whenever its connection closes, connecting again after a {@link ReconnectBackoff} and subscribing with
 * its positions, as a client library does. Latency is recorded for every stamped message, recovered ones included.
 */
final class RecoveringSubscribers implements AutoCloseable {

    private final InetSocketAddress front;
    private final String topic;
    private final ReconnectBackoff backoff;
    private final int perAddress;
    private final ByteBuf upgradeRequest;
    private final ByteBuf connectFrame;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Random random;
    private final List<RecoveringClient> clients = new ArrayList<>();

    /** Latency in microseconds, send (scheduled) to the moment the frame is read here. */
    private final Recorder latency = new Recorder(3);
    private final LongAdder messages = new LongAdder();
    private final LongAdder unstamped = new LongAdder();
    private final LongAdder otherMessages = new LongAdder();
    private final AtomicInteger reconnects = new AtomicInteger();
    private final AtomicInteger connectFailures = new AtomicInteger();
    private final AtomicInteger serverCloses = new AtomicInteger();
    private final AtomicInteger problems = new AtomicInteger();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();
    private volatile boolean closing;

    RecoveringSubscribers(InetSocketAddress front, String token, String topic, ReconnectBackoff backoff, int perAddress, int threads, long seed) {
        this.front = front;
        this.topic = topic;
        this.backoff = backoff;
        this.perAddress = perAddress;
        this.random = new Random(seed);
        String hostPort = front.getHostString() + ":" + front.getPort();
        this.upgradeRequest = ClientFrames.upgradeRequest(hostPort, LocalBridge.PATH);
        this.connectFrame = ClientFrames.text("{\"type\":\"connect\",\"id\":1,\"token\":\"" + token + "\"}");
        Transport transport = Transport.best();
        this.group = transport.newGroup(threads, "failover-sub");
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
    }

    /** Opens {@code count} clients, each on a random endpoint, at most {@code perSecond} new connections a second. */
    void open(int count, int endpoints, int perSecond) {
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long wait = start + (long) (i * 1e9 / perSecond) - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            RecoveringClient client;
            synchronized (random) {
                client = new RecoveringClient(i, random.nextInt(endpoints));
            }
            synchronized (clients) {
                clients.add(client);
            }
            connect(client);
        }
    }

    private void connect(RecoveringClient client) {
        if (closing) {
            return;
        }
        // A clone per connection: reconnects run on event-loop threads at once, and the handler is per connection.
        bootstrap.clone().handler(new RecoveringConnection(this, client))
                .connect(front, BenchSubscribers.sourceAddress(client.index(), perAddress))
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        connectFailures.incrementAndGet();
                        problem("client " + client.index() + " connect: " + f.cause());
                        retry(client);
                    }
                });
    }

    private void retry(RecoveringClient client) {
        if (closing) {
            return;
        }
        int attempt = client.closed(System.nanoTime());
        reconnects.incrementAndGet();
        group.schedule(() -> connect(client), delay(attempt), TimeUnit.MILLISECONDS);
    }

    private long delay(int attempt) {
        synchronized (random) {
            return backoff.delayMillis(attempt, random);
        }
    }

    /** Runs {@code action} on {@code loop} after {@code retryAfterMs} and a first-retry backoff, whichever is longer. */
    void later(EventLoop loop, long retryAfterMs, RecoveringClient client, Runnable action) {
        loop.schedule(action, Math.max(retryAfterMs, delay(1)), TimeUnit.MILLISECONDS);
    }

    String endpoint(int index) {
        return BenchTopic.endpoint(topic, index);
    }

    ByteBuf upgradeRequest() {
        return upgradeRequest;
    }

    ByteBuf connectFrame() {
        return connectFrame.retainedDuplicate();
    }

    void onMessage(long stamp) {
        messages.increment();
        if (stamp < 0) {
            unstamped.increment();
            return;
        }
        latency.recordValue(Math.max(0, (LatencyStamp.now() - stamp) / 1_000));
    }

    void onOther() {
        otherMessages.increment();
    }

    void onServerClose(int code) {
        serverCloses.incrementAndGet();
    }

    void onClosed(RecoveringClient client) {
        retry(client);
    }

    void problem(String what) {
        problems.incrementAndGet();
        firstProblem.compareAndSet(null, what);
    }

    /** Marks the clients on {@code node} as the stopped node's; returns how many there are. */
    int markStopped(String node, long killTime) {
        int marked = 0;
        for (RecoveringClient client : clients()) {
            if (client.markIfOn(node, killTime)) {
                marked++;
            }
        }
        return marked;
    }

    List<RecoveringClient> clients() {
        synchronized (clients) {
            return List.copyOf(clients);
        }
    }

    int subscribed() {
        int n = 0;
        for (RecoveringClient client : clients()) {
            if (client.isSubscribed()) {
                n++;
            }
        }
        return n;
    }

    /** Subscribed clients per node, by name. */
    Map<String, Integer> perNode() {
        Map<String, Integer> nodes = new TreeMap<>();
        for (RecoveringClient client : clients()) {
            String node = client.node();
            if (node != null && client.isSubscribed()) {
                nodes.merge(node, 1, Integer::sum);
            }
        }
        return nodes;
    }

    /** The stopped node's clients subscribed again so far. */
    int resubscribed() {
        int n = 0;
        for (RecoveringClient client : clients()) {
            if (client.killToResubscribedNanos() >= 0) {
                n++;
            }
        }
        return n;
    }

    Recorder latency() {
        return latency;
    }

    long messages() {
        return messages.sum();
    }

    long unstamped() {
        return unstamped.sum();
    }

    long otherMessages() {
        return otherMessages.sum();
    }

    int reconnects() {
        return reconnects.get();
    }

    int connectFailures() {
        return connectFailures.get();
    }

    int serverCloses() {
        return serverCloses.get();
    }

    int problems() {
        return problems.get();
    }

    String firstProblem() {
        return firstProblem.get();
    }

    @Override
    public void close() {
        closing = true;
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
        connectFrame.release();
    }
}
