package io.sluice.bench.bridge;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Recorder;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.sluice.transport.Transport;

/**
 * Benchsub: opens many WebSocket connections or SSE streams ({@link BenchTransport}) to one bridge, each from one of several loopback source addresses
 * (127.0.0.2, 127.0.0.3, ...) and each
 * subscribed to one random endpoint, and measures the latency of every message received. The connections share one
 * or two event loops and a handful of counters; each holds only its {@link SubscriberConnection}.
 */
final class BenchSubscribers implements AutoCloseable {

    /** Connections being opened at once: enough to keep the bridge busy, few enough not to overflow its accept queue. */
    private static final int MAX_IN_FLIGHT = 500;

    private static final byte[] VALUE_STAMP = ("\"" + StructuredValues.STAMP_FIELD + "\":\"").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PATCH_PATH = ("\"/" + StructuredValues.STAMP_FIELD + "\"").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PATCH_VALUE = "\"value\":\"".getBytes(StandardCharsets.US_ASCII);
    /** How far after a patch operation's path its value starts at most: {@code ,"value":"}. */
    private static final int PATCH_VALUE_WITHIN = 16;

    private final String topic;
    private final BenchSettings settings;
    private final String subscribeOptions;
    private final InetSocketAddress server;
    private final String hostPort;
    private final String ssePath;
    private final String token;
    private final int maxSseLineBytes;
    private final ByteBuf upgradeRequest;
    private final ByteBuf connectFrame;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);

    /** Latency in microseconds, send (scheduled) to the moment the frame is read here. */
    private final Recorder latency = new Recorder(3);
    private final LongAdder messages = new LongAdder();
    private final LongAdder deltas = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder unstamped = new LongAdder();
    private final LongAdder otherMessages = new LongAdder();
    private final AtomicInteger attempted = new AtomicInteger();
    private final AtomicInteger subscribed = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger serverCloses = new AtomicInteger();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();

    BenchSubscribers(URI url, String token, String topic, BenchSettings settings) {
        this.topic = topic;
        this.settings = settings;
        this.subscribeOptions = subscribeOptions(settings);
        this.server = new InetSocketAddress(url.getHost(), url.getPort());
        this.hostPort = url.getHost() + ":" + url.getPort();
        this.ssePath = url.getRawPath() + "/sse";
        this.token = token;
        // A message's data line is its JSON: the value (ASCII text, or base64 at worst: 4/3 of it) and its envelope.
        // Twice --payload and 64 KiB more (structured values are ~1.2 KB) leaves room for any value the bench sends,
        // and still bounds a stream that never ends a line.
        this.maxSseLineBytes = (int) Math.min(Integer.MAX_VALUE / 4, 65_536L + 2L * settings.payloadBytes());
        this.upgradeRequest = ClientFrames.upgradeRequest(hostPort, url.getRawPath());
        this.connectFrame = ClientFrames.connect(token);
        Transport transport = Transport.best();
        this.group = transport.newGroup(settings.clientThreads(), "bench-sub");
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT);
    }

    /**
     * Opens {@code connections} connections at up to {@code perSecond} a second, at most {@link #MAX_IN_FLIGHT}
     * handshaking at once, {@code perAddress} per source address; returns once every one is subscribed or has failed.
     */
    void connect(int connections, int endpoints, int perSecond, int perAddress, long seed) throws InterruptedException {
        Random random = new Random(seed);
        long start = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            long due = start + (long) (i * 1e9 / perSecond);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            inFlight.acquire();
            attempted.incrementAndGet();
            int endpoint = random.nextInt(endpoints);
            // The handler is set per connection: Bootstrap copies it into the new channel's pipeline during connect.
            bootstrap.handler(switch (settings.transport()) {
                        case SSE -> new SseSubscriberConnection(this, endpoint, maxSseLineBytes);
                        case MQTT -> new MqttSubscriberConnection(this, endpoint, i);
                        case WEBSOCKET -> new SubscriberConnection(this, endpoint);
                    })
                    .connect(server, sourceAddress(i, perAddress))
                    .addListener(f -> {
                        if (f.isSuccess()) {
                            open.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            problem("connect: " + f.cause());
                            inFlight.release();
                        }
                    });
        }
        // Every permit back: each connection has subscribed or failed.
        while (!inFlight.tryAcquire(MAX_IN_FLIGHT, 1, TimeUnit.SECONDS)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        inFlight.release(MAX_IN_FLIGHT);
    }

    /**
     * One address has only the ephemeral range (32768-60999 here, ~28,000 ports) for sockets bound to it, and Linux
     * gives bind() the odd half of the range first: past ~14,000 per address every bind scans the full, busy other
     * half, and connecting slowed from thousands to ~200 a second when we tried. Hence 10,000 per address by default.
     * 127.0.0.2 for the first {@code perAddress} connections, then 127.0.0.3, ... (127.0.1.0 after 127.0.0.255). */
    static InetSocketAddress sourceAddress(int connection, int perAddress) {
        return sourceAddress(connection, perAddress, 0);
    }

    /** The same, {@code skipAddresses} addresses further: another load's connections beside the subscribers'. */
    static InetSocketAddress sourceAddress(int connection, int perAddress, int skipAddresses) {
        int host = 2 + skipAddresses + connection / perAddress;
        if (host > 0xffff) {
            throw new IllegalArgumentException("too many source addresses for " + connection + " connections");
        }
        return new InetSocketAddress("127.0." + (host >> 8) + "." + (host & 0xff), 0);
    }

    ByteBuf upgradeRequest() {
        return upgradeRequest;
    }

    ByteBuf connectFrame() {
        return connectFrame.retainedDuplicate();
    }

    /**
     * The {@code GET {path}/sse} of a stream of {@code endpoint} with the subscription options of a WebSocket
     * {@code subscribe} as query parameters, authenticated as a WebSocket {@code connect} is: with the bench's token,
     * here in {@code Authorization}. Made per connection: a few hundred bytes once, not per message.
     */
    ByteBuf sseRequest(int endpoint) {
        StringBuilder query = new StringBuilder("endpoint=").append(encode(BenchTopic.endpoint(topic, endpoint)));
        if (!settings.fields().isEmpty()) {
            query.append("&fields=").append(encode(String.join(",", settings.fields())));
        }
        if (settings.delta()) {
            query.append("&delta=true");
        }
        String request = "GET " + ssePath + "?" + query + " HTTP/1.1\r\n"
                + "Host: " + hostPort + "\r\n"
                + "Authorization: Bearer " + token + "\r\n"
                + "Accept: text/event-stream\r\n\r\n";
        return Unpooled.copiedBuffer(request, StandardCharsets.US_ASCII);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    ByteBuf subscribeFrame(int endpoint) {
        return ClientFrames.text("{\"type\":\"subscribe\",\"id\":2,\"endpoint\":\"" + BenchTopic.endpoint(topic, endpoint) + "\""
                + subscribeOptions + "}");
    }

    private static String subscribeOptions(BenchSettings settings) {
        StringBuilder options = new StringBuilder();
        if (!settings.fields().isEmpty()) {
            options.append(",\"fields\":[");
            for (int i = 0; i < settings.fields().size(); i++) {
                options.append(i == 0 ? "\"" : ",\"").append(settings.fields().get(i)).append('"');
            }
            options.append(']');
        }
        if (settings.delta()) {
            options.append(",\"delta\":true");
        }
        return options.toString();
    }

    /** A {@code message} frame's JSON at {@code start}; with raw values its payload, the last field, is the stamped text. */
    void onMessage(ByteBuf frame, int start, int length) {
        messages.increment();
        long stamp;
        if (settings.shape().structured()) {
            stamp = LatencyStamp.find(frame, start, start + length, VALUE_STAMP);
        } else {
            // {... ,"payload":"<stamp> xxx"}: with an ASCII payload of known size the stamp is at a fixed distance from
            // the end; the check of the two bytes in front keeps a payload of another size from being misread.
            int stampAt = start + length - 2 - settings.payloadBytes();
            stamp = stampAt > start && frame.getByte(stampAt - 1) == '"' && frame.getByte(stampAt - 2) == ':'
                    ? LatencyStamp.read(frame, stampAt) : -1;
        }
        record(stamp);
    }

    /**
     * An MQTT PUBLISH's payload at {@code start}: the record's value as the bridge delivers it over MQTT (the text, or
     * the decoded JSON of a structured value), so the stamp is at its start, or in its JSON.
     */
    void onMqttMessage(ByteBuf packet, int start, int length) {
        messages.increment();
        long stamp;
        if (settings.shape().structured()) {
            stamp = LatencyStamp.find(packet, start, start + length, VALUE_STAMP);
        } else {
            stamp = length >= LatencyStamp.MIN_PAYLOAD && packet.getByte(start + LatencyStamp.DIGITS) == ' ' ? LatencyStamp.read(packet, start) : -1;
        }
        record(stamp);
    }

    String token() {
        return token;
    }

    String topic() {
        return topic;
    }

    /** A {@code delta} frame's JSON at {@code start}: the stamp is the value of the patch operation on the timestamp. */
    void onDelta(ByteBuf frame, int start, int length) {
        messages.increment();
        deltas.increment();
        int end = start + length;
        int path = LatencyStamp.indexOf(frame, start, end, PATCH_PATH);
        long stamp = path < 0 ? -1
                : LatencyStamp.find(frame, path + PATCH_PATH.length, Math.min(end, path + PATCH_PATH.length + PATCH_VALUE_WITHIN + LatencyStamp.DIGITS), PATCH_VALUE);
        record(stamp);
    }

    private void record(long stamp) {
        if (stamp < 0) {
            unstamped.increment();
            return;
        }
        latency.recordValue(Math.max(0, (LatencyStamp.now() - stamp) / 1_000));
    }

    /** Bytes received: WebSocket frames (headers included), or an SSE stream's body (chunk framing, ids and heartbeats included). */
    void onWireBytes(int received) {
        bytes.add(received);
    }

    void onSubscribed() {
        subscribed.incrementAndGet();
        inFlight.release();
    }

    void onOtherMessage(String json) {
        otherMessages.increment();
        if (json.startsWith("{\"type\":\"error\"")) {
            problem(json);
        }
    }

    void onServerClose(int code) {
        serverCloses.incrementAndGet();
        problem("the bridge closed a connection with code " + code);
    }

    void onError(String why) {
        problem(why);
    }

    void onClosed(boolean wasSubscribed) {
        open.decrementAndGet();
        if (wasSubscribed) {
            subscribed.decrementAndGet();
        } else {
            inFlight.release();
        }
    }

    private void problem(String what) {
        firstProblem.compareAndSet(null, what);
    }

    Recorder latency() {
        return latency;
    }

    long messages() {
        return messages.sum();
    }

    long deltas() {
        return deltas.sum();
    }

    long bytes() {
        return bytes.sum();
    }

    long unstamped() {
        return unstamped.sum();
    }

    long otherMessages() {
        return otherMessages.sum();
    }

    int attempted() {
        return attempted.get();
    }

    int open() {
        return open.get();
    }

    int subscribed() {
        return subscribed.get();
    }

    int failed() {
        return failed.get();
    }

    int serverCloses() {
        return serverCloses.get();
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
