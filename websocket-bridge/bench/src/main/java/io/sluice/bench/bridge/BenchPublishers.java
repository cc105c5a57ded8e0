package io.sluice.bench.bridge;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Recorder;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.sluice.transport.Transport;

/**
 * The publishing counterpart of {@link BenchSubscribers}: opens many WebSocket connections to one bridge, each
 * publishing into Kafka on its own schedule ({@link PublisherConnection}), and measures publish → ack latency. Their
 * source addresses start {@link #SKIP_ADDRESSES} loopback addresses after the subscribers', so both loads can run at
 * once without sharing an address's ephemeral ports.
 */
final class BenchPublishers implements AutoCloseable {

    /** Connections being opened at once, as for subscribers. */
    private static final int MAX_IN_FLIGHT = 500;
    static final int SKIP_ADDRESSES = 100;

    private final String topic;
    private final PublishSettings settings;
    private final InetSocketAddress server;
    private final ByteBuf upgradeRequest;
    private final ByteBuf connectFrame;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final ConcurrentLinkedQueue<PublishingClient> connected = new ConcurrentLinkedQueue<>();
    private final String token;

    /** Publish (scheduled) → ack read here, microseconds. */
    private final Recorder ackLatency = new Recorder(3);
    private final LongAdder sent = new LongAdder();
    private final LongAdder acked = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final AtomicLong maxLagNanos = new AtomicLong();
    private final AtomicInteger attempted = new AtomicInteger();
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();

    BenchPublishers(URI url, String token, String topic, PublishSettings settings) {
        this.topic = topic;
        this.settings = settings;
        this.server = new InetSocketAddress(url.getHost(), url.getPort());
        this.upgradeRequest = ClientFrames.upgradeRequest(url.getHost() + ":" + url.getPort(), url.getRawPath());
        this.connectFrame = ClientFrames.connect(token);
        this.token = token;
        Transport transport = Transport.best();
        this.group = transport.newGroup(settings.clientThreads(), "bench-pub");
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
    }

    /** Opens the clients at up to {@code connectRate} a second; returns once each is connected or has failed. */
    void connect() throws InterruptedException {
        long start = System.nanoTime();
        for (int i = 0; i < settings.clients(); i++) {
            long wait = start + (long) (i * 1e9 / settings.connectRate()) - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            inFlight.acquire();
            attempted.incrementAndGet();
            bootstrap.handler(settings.transport() == BenchTransport.MQTT ? new MqttPublisherConnection(this, i) : new PublisherConnection(this, i))
                    .connect(server, BenchSubscribers.sourceAddress(i, settings.perAddress(), SKIP_ADDRESSES))
                    .addListener(f -> {
                        if (!f.isSuccess()) {
                            failed.incrementAndGet();
                            onProblem("connect: " + f.cause());
                            inFlight.release();
                        }
                    });
        }
        while (!inFlight.tryAcquire(MAX_IN_FLIGHT, 1, TimeUnit.SECONDS)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        inFlight.release(MAX_IN_FLIGHT);
    }

    /** Every connected client starts publishing, each at a random offset within one period so the load is even. */
    void start(long seed) {
        Random random = new Random(seed);
        long period = settings.periodNanos();
        long now = LatencyStamp.now();
        for (PublishingClient c : connected) {
            c.start(now + (long) (random.nextDouble() * period), period);
        }
    }

    void stop() {
        connected.forEach(PublishingClient::stop);
    }

    String topic() {
        return topic;
    }

    ByteBuf upgradeRequest() {
        return upgradeRequest;
    }

    ByteBuf connectFrame() {
        return connectFrame.retainedDuplicate();
    }

    /**
     * A {@code publish} of {@code payloadBytes} bytes of text: the stamp, a space, the publish's name
     * ({@code client:index}), a space, filler. As a JSON string it is published as the record value byte for byte.
     */
    ByteBuf publishFrame(String endpoint, long id, long stamp, String name) {
        return ClientFrames.text("{\"type\":\"publish\",\"id\":" + id + ",\"endpoint\":\"" + endpoint + "\",\"payload\":\""
                + new String(publishPayload(stamp, name), StandardCharsets.US_ASCII) + "\"}");
    }

    /** The payload itself, which an MQTT PUBLISH carries as it is: the record value Kafka gets either way. */
    byte[] publishPayload(long stamp, String name) {
        byte[] payload = LatencyStamp.payload(stamp, settings.payloadBytes());
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(nameBytes, 0, payload, LatencyStamp.DIGITS + 1, nameBytes.length);
        payload[LatencyStamp.DIGITS + 1 + nameBytes.length] = ' ';
        return payload;
    }

    String token() {
        return token;
    }

    io.netty.buffer.ByteBufAllocator allocator() {
        return PooledByteBufAllocator.DEFAULT;
    }

    void onConnected(PublishingClient connection) {
        connected.add(connection);
        ready.incrementAndGet();
        inFlight.release();
    }

    void onSent(long lagNanos) {
        sent.increment();
        maxLagNanos.accumulateAndGet(lagNanos, Math::max);
    }

    void onAcked(long latencyNanos) {
        acked.increment();
        ackLatency.recordValue(Math.max(0, latencyNanos / 1_000));
    }

    void onRefused(String json) {
        refused.increment();
        onProblem(json);
    }

    void onProblem(String what) {
        firstProblem.compareAndSet(null, what);
    }

    void onClosed(boolean wasConnected) {
        if (wasConnected) {
            ready.decrementAndGet();
        } else {
            failed.incrementAndGet();
            inFlight.release();
        }
    }

    Recorder ackLatency() {
        return ackLatency;
    }

    List<PublishingClient> connections() {
        return List.copyOf(connected);
    }

    long sent() {
        return sent.sum();
    }

    long acked() {
        return acked.sum();
    }

    long refused() {
        return refused.sum();
    }

    double maxLagMillis() {
        return maxLagNanos.get() / 1e6;
    }

    int attempted() {
        return attempted.get();
    }

    int ready() {
        return ready.get();
    }

    int failed() {
        return failed.get();
    }

    String firstProblem() {
        return firstProblem.get();
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
        connectFrame.release();
    }
}
