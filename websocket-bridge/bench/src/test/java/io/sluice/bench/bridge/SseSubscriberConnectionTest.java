package io.sluice.bench.bridge;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bench's SSE subscriber on bytes we write ourselves: the stream split at every possible place still yields every
 * event once with its stamp, and a stream that never ends a line, a malformed chunk or a refused request closes the
 * connection with the reason, holding no more than the line limit meanwhile.
 */
class SseSubscriberConnectionTest {

    private static final int PAYLOAD = 48;
    private static final int MAX_LINE = 4096;

    private BenchSubscribers run;

    @BeforeEach
    void subscribers() {
        BenchSettings settings = new BenchSettings(1, 1, 1, PAYLOAD, Duration.ZERO, Duration.ofSeconds(1), 1, 1, 1, 1);
        run = new BenchSubscribers(URI.create("ws://127.0.0.1:9/ws"), "bench-token-0123456789", "bench", settings);
    }

    @AfterEach
    void close() {
        run.close();
    }

    private static final String HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n";

    private static String chunk(String text) {
        return Integer.toHexString(text.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + text + "\r\n";
    }

    private static String message(long seq) {
        String payload = new String(LatencyStamp.payload(LatencyStamp.now(), PAYLOAD), StandardCharsets.US_ASCII);
        return "id: 1.AQ\ndata: {\"type\":\"message\",\"endpoint\":\"/bench/k0\",\"epoch\":\"e-0\",\"seq\":" + seq
                + ",\"timestamp\":1,\"format\":\"text\",\"payload\":\"" + payload + "\"}\n\n";
    }

    private String stream() {
        StringBuilder body = new StringBuilder();
        body.append(chunk("retry: 2000\n\n"));
        body.append(chunk("event: connected\ndata: {\"type\":\"connected\",\"node\":\"n\",\"subject\":\"bench\"}\n\n"));
        body.append(chunk("event: subscribed\ndata: {\"type\":\"subscribed\",\"endpoint\":\"/bench/k0\",\"positions\":[]}\n\n"));
        body.append(chunk(message(1)));
        body.append(chunk(": heartbeat\n\n"));
        // Two events in one chunk, and one event over two chunks split inside its data line.
        body.append(chunk(message(2) + message(3)));
        String fourth = message(4);
        body.append(chunk(fourth.substring(0, 30))).append(chunk(fourth.substring(30)));
        return HEAD + body;
    }

    @Test
    void everyEventIsReadOnceWithItsStampHoweverTheBytesAreSplit() {
        byte[] stream = stream().getBytes(StandardCharsets.UTF_8);
        int bodyBytes = stream.length - HEAD.length();
        Random random = new Random(7);
        for (int trial = 0; trial < 50; trial++) {
            long bytesBefore = run.bytes();
            EmbeddedChannel channel = new EmbeddedChannel(new SseSubscriberConnection(run, 0, MAX_LINE));
            ByteBuf request = channel.readOutbound();
            assertThat(request.toString(StandardCharsets.US_ASCII)).startsWith("GET /ws/sse?endpoint=%2Fbench%2Fk0 HTTP/1.1\r\n")
                    .contains("\r\nAuthorization: Bearer bench-token-0123456789\r\n");
            request.release();
            // Trial 0 byte by byte, the others at random places.
            for (int at = 0; at < stream.length; ) {
                int n = trial == 0 ? 1 : 1 + random.nextInt(40);
                n = Math.min(n, stream.length - at);
                channel.writeInbound(Unpooled.wrappedBuffer(stream, at, n));
                at += n;
            }
            assertThat(channel.isActive()).isTrue();
            assertThat(run.firstProblem()).isNull();
            assertThat(run.messages()).isEqualTo(4L * (trial + 1));
            assertThat(run.unstamped()).isZero();
            assertThat(run.subscribed()).as("subscribed while open").isEqualTo(1);
            assertThat(run.bytes() - bytesBefore).as("every body byte, chunk framing included").isEqualTo(bodyBytes);
            // The end of the stream: the last chunk closes the connection.
            channel.writeInbound(Unpooled.copiedBuffer("0\r\n\r\n", StandardCharsets.US_ASCII));
            assertThat(channel.isActive()).isFalse();
            channel.finishAndReleaseAll();
        }
        assertThat(run.latency().getIntervalHistogram().getTotalCount()).isEqualTo(4L * 50);
    }

    @Test
    void aLineOverTheLimitClosesTheConnectionWithoutHoldingIt() {
        EmbeddedChannel channel = new EmbeddedChannel(new SseSubscriberConnection(run, 0, MAX_LINE));
        channel.writeInbound(Unpooled.copiedBuffer(HEAD, StandardCharsets.US_ASCII));
        // One endless data line, sent as chunks of 1 KiB: the connection fails once the line passes the limit.
        String kib = "x".repeat(1024);
        channel.writeInbound(Unpooled.copiedBuffer(chunk("data: " + kib), StandardCharsets.US_ASCII));
        int chunks = 1;
        while (channel.isActive() && chunks < 100) {
            channel.writeInbound(Unpooled.copiedBuffer(chunk(kib), StandardCharsets.US_ASCII));
            chunks++;
        }
        assertThat(channel.isActive()).isFalse();
        // "data: " and 4 KiB: the fourth chunk takes the line past the limit.
        assertThat(chunks).as("closed as soon as the line passed %d bytes", MAX_LINE).isEqualTo(4);
        assertThat(run.firstProblem()).isEqualTo("SSE stream: a line over " + MAX_LINE + " bytes");
        channel.finishAndReleaseAll();
    }

    @Test
    void manyShortLinesWithoutTheBlankLineAreBoundedToo() {
        EmbeddedChannel channel = new EmbeddedChannel(new SseSubscriberConnection(run, 0, MAX_LINE));
        channel.writeInbound(Unpooled.copiedBuffer(HEAD, StandardCharsets.US_ASCII));
        int chunks = 0;
        while (channel.isActive() && chunks < 1000) {
            channel.writeInbound(Unpooled.copiedBuffer(chunk("id: " + "1".repeat(100) + "\n"), StandardCharsets.US_ASCII));
            chunks++;
        }
        assertThat(channel.isActive()).isFalse();
        assertThat(run.firstProblem()).startsWith("SSE stream: an event over " + 2 * MAX_LINE + " bytes");
        channel.finishAndReleaseAll();
    }

    @Test
    void aMalformedOrHugeChunkSizeAndARefusedStreamAreProblemsThatNameWhy() {
        for (String[] c : new String[][] {
                {HEAD + "zz\r\n", "SSE stream: a malformed chunk size"},
                {HEAD + "1000000000000000\r\n", "SSE stream: a malformed chunk size"},
                {HEAD + "1".repeat(40), "SSE stream: a chunk-size line over 32 bytes"},
                {"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{\"type\":\"error\",\"code\":\"invalid_token\"}",
                        "stream refused: HTTP/1.1 401 Unauthorized {\"type\":\"error\",\"code\":\"invalid_token\"}"},
                {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "stream answered without Transfer-Encoding: chunked"}}) {
            // A fresh run per case, so each reports its own first problem.
            run.close();
            subscribers();
            EmbeddedChannel channel = new EmbeddedChannel(new SseSubscriberConnection(run, 0, MAX_LINE));
            channel.writeInbound(Unpooled.copiedBuffer(c[0], StandardCharsets.US_ASCII));
            assertThat(channel.isActive()).as(c[1]).isFalse();
            assertThat(run.firstProblem()).isEqualTo(c[1]);
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void aCloseEventIsAServerCloseWithItsCode() {
        EmbeddedChannel channel = new EmbeddedChannel(new SseSubscriberConnection(run, 0, MAX_LINE));
        channel.writeInbound(Unpooled.copiedBuffer(HEAD + chunk("event: close\ndata: {\"type\":\"close\",\"code\":4008,\"reason\":\"slow client\"}\n\n"),
                StandardCharsets.US_ASCII));
        assertThat(channel.isActive()).isFalse();
        assertThat(run.serverCloses()).isEqualTo(1);
        assertThat(run.firstProblem()).isEqualTo("the bridge closed a connection with code 4008");
        channel.finishAndReleaseAll();
    }
}
