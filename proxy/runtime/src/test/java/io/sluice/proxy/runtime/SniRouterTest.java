package io.sluice.proxy.runtime;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SNI router's refusals, with real ClientHellos from the JDK's TLS client and hostile bytes: what is counted, what
 * the client is sent, that the connection closes, and that the wait for a route is released exactly once. Routing a
 * connection through to its gateway is SniRoutingTest's (kafka-clients and librdkafka through one port).
 */
class SniRouterTest {

    private static final byte[] UNRECOGNIZED_NAME_ALERT = {21, 3, 3, 0, 2, 2, 112};

    /** Routes that refuse every name as unknown, or answer with {@link #answer} when set; remembers refusals. */
    private static final class Routes implements SniRoutes {
        final List<String> refusals = new ArrayList<>();
        final List<String> asked = new ArrayList<>();
        CompletableFuture<ConnectionSetup> answer;

        @Override
        public CompletionStage<ConnectionSetup> route(String serverName) {
            asked.add(serverName);
            return answer != null ? answer : CompletableFuture.failedFuture(new SniRefusedException(SniRefusal.UNKNOWN_NAME, "no gateway answers"));
        }

        @Override
        public void refused(Channel channel, SniRefusal reason, String detail) {
            refusals.add(reason.label() + ": " + detail);
        }
    }

    private final Routes routes = new Routes();
    private final AtomicInteger released = new AtomicInteger();

    private EmbeddedChannel channel(Duration deadline) {
        return new EmbeddedChannel(new SniRouter(routes, deadline, released::incrementAndGet));
    }

    @Test
    void aClientHelloWithoutAServerNameIsRefusedWithAnAlert() throws Exception {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));

        ch.writeInbound(Unpooled.wrappedBuffer(clientHello(null)));

        assertThat(routes.asked).isEmpty();
        assertThat(routes.refusals).singleElement().asString().startsWith("no_sni: the TLS ClientHello has no server name");
        assertAlertThenClosed(ch);
    }

    @Test
    void anUnknownNameIsRefusedWithAnAlertOnce() throws Exception {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));

        // A second ClientHello behind the first is not looked at.
        ch.writeInbound(Unpooled.wrappedBuffer(clientHello("nope.kafka.example.com"), clientHello("other.kafka.example.com")));

        assertThat(routes.asked).containsExactly("nope.kafka.example.com");
        assertThat(routes.refusals).containsExactly("unknown_name: no gateway answers (server name 'nope.kafka.example.com')");
        assertAlertThenClosed(ch);
    }

    @Test
    void aClientHelloInFragmentsIsReadWhole() throws Exception {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        byte[] hello = clientHello("Bootstrap.Kafka.Example.com");

        for (int i = 0; i < hello.length; i += 7) {
            ch.writeInbound(Unpooled.wrappedBuffer(hello, i, Math.min(7, hello.length - i)));
        }

        // Lower-cased by Netty, as the configured patterns are.
        assertThat(routes.asked).containsExactly("bootstrap.kafka.example.com");
        assertAlertThenClosed(ch);
    }

    @Test
    void plaintextKafkaIsClosedWithoutAnAlert() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));

        // The start of an ApiVersions request: a size, then api key 18.
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 20, 0, 18, 0, 3, 0, 0, 0, 1, 0, 4, 'k', 'a', 'f', 'k'}));

        assertThat(routes.refusals).containsExactly("not_tls: the first bytes are not a TLS ClientHello");
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isActive()).isFalse();
        assertThat(released).hasValue(1);
    }

    @Test
    void aClientHelloLongerThanTheLimitIsRefusedBeforeItIsBuffered() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        int length = SniRouter.MAX_CLIENT_HELLO_BYTES + 1;
        // A full handshake record whose ClientHello header announces more than the limit.
        ByteBuf bytes = Unpooled.buffer().writeByte(22).writeShort(0x0301).writeShort(16384)
                .writeByte(1).writeMedium(length).writeZero(16384 - 4);

        ch.writeInbound(bytes);

        assertThat(routes.refusals).containsExactly("client_hello_too_large: a TLS ClientHello longer than 16384 bytes");
        assertThat(ch.isActive()).isFalse();
        assertThat(released).hasValue(1);
    }

    @Test
    void aHostileServerNameIsLoggedPrintableAndCut() throws Exception {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        byte[] hello = clientHello("aaaaaaaaaaaaaaaa.example.com");
        // The same structure with control characters in the name: a forged log line if printed as sent.
        String text = new String(hello, StandardCharsets.ISO_8859_1).replace("aaaaaaaaaaaaaaaa", "x\n2099 FAKE LINE");
        ch.writeInbound(Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.ISO_8859_1)));

        assertThat(routes.asked).singleElement().asString().contains("\n");
        assertThat(routes.refusals).singleElement().asString().endsWith("(server name 'x?2099?fake?line.example.com')");
        assertThat(SniRouter.printable("a".repeat(300))).hasSize(253 + 3).endsWith("...");
        assertAlertThenClosed(ch);
    }

    @Test
    void noClientHelloWithinTheDeadlineIsRefused() {
        EmbeddedChannel ch = channel(Duration.ofMillis(200));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {22, 3, 1}));

        ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();

        assertThat(routes.refusals).containsExactly("timeout: no routable TLS ClientHello within network.preAuthentication.timeout 200 ms");
        assertThat(ch.isActive()).isFalse();
        assertThat(released).hasValue(1);
    }

    @Test
    void aPendingLookupHoldsTheConnectionUntilItEndsAndTheDeadlineBoundsIt() throws Exception {
        routes.answer = new CompletableFuture<>();
        EmbeddedChannel ch = channel(Duration.ofMillis(500));

        ch.writeInbound(Unpooled.wrappedBuffer(clientHello("broker-9.kafka.example.com")));
        assertThat(routes.asked).containsExactly("broker-9.kafka.example.com");
        assertThat(routes.refusals).isEmpty();
        assertThat(ch.isActive()).isTrue();
        assertThat(released).hasValue(0);

        ch.advanceTimeBy(500, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(routes.refusals).singleElement().asString().startsWith("timeout:");
        // The lookup ending afterwards changes nothing.
        routes.answer.completeExceptionally(new SniRefusedException(SniRefusal.UNKNOWN_NODE, "late"));
        ch.runPendingTasks();
        assertThat(routes.refusals).hasSize(1);
        assertThat(released).hasValue(1);
    }

    @Test
    void aLookupThatFailsLaterRefusesThen() throws Exception {
        routes.answer = new CompletableFuture<>();
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        ch.writeInbound(Unpooled.wrappedBuffer(clientHello("broker-9.kafka.example.com")));

        routes.answer.completeExceptionally(new SniRefusedException(SniRefusal.UNKNOWN_NODE, "knows no broker node 9"));
        ch.runPendingTasks();

        assertThat(routes.refusals).containsExactly("unknown_node: knows no broker node 9 (server name 'broker-9.kafka.example.com')");
        assertAlertThenClosed(ch);
    }

    @Test
    void aClientThatLeavesEarlyIsReleasedOnce() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {22, 3, 1}));

        ch.close();

        assertThat(routes.refusals).isEmpty();
        assertThat(released).hasValue(1);
    }

    private void assertAlertThenClosed(EmbeddedChannel ch) {
        ByteBuf alert = ch.readOutbound();
        assertThat(ByteBufUtil.getBytes(alert)).containsExactly(UNRECOGNIZED_NAME_ALERT);
        alert.release();
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isActive()).isFalse();
        assertThat(released).hasValue(1);
    }

    /** The first flight of the JDK's TLS client, with {@code serverName} as SNI (none when null). */
    static byte[] clientHello(String serverName) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, null, null);
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setServerNames(serverName == null ? List.of() : List.of(new SNIHostName(serverName)));
        engine.setSSLParameters(parameters);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        return bytes;
    }
}
