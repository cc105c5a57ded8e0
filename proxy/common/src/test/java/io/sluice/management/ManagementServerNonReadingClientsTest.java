package io.sluice.management;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that ask for /metrics again and again and never read the answers. The endpoint answers on two threads with
 * blocking writes: without a bound on how long an exchange may take, two such clients held both threads and /readyz
 * stopped answering, so Kubernetes would take a healthy pod out of service or restart it.
 */
class ManagementServerNonReadingClientsTest {

    @Test
    void clientsThatNeverReadAreCutOffAndReadinessKeepsAnswering() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // A scrape large enough not to fit the sockets' buffers.
        for (int i = 0; i < 3000; i++) {
            Counter.builder("padding_" + i).description("x".repeat(40)).register(registry).increment();
        }
        try (ManagementServer server = new ManagementServer("127.0.0.1", 0, registry, Map.of())) {
            server.start();
            List<SocketChannel> attackers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                attackers.add(pipelineScrapes(server.port()));
            }
            // Until the kernel's buffers towards the attackers are full, their scrapes still complete: give the server
            // time to get stuck writing to them.
            Thread.sleep(4_000);

            HttpURLConnection honest = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.port() + "/readyz").toURL().openConnection();
            honest.setConnectTimeout(5_000);
            // Past the exchange limit (10 s, checked every second) the stuck exchanges are closed and the threads free.
            // Without it they stayed stuck until the JDK's idle sweep 30 s later, and a client that reconnects keeps
            // them stuck for good.
            honest.setReadTimeout(22_000);
            assertThat(honest.getResponseCode()).isEqualTo(200);
            for (SocketChannel attacker : attackers) {
                attacker.close();
            }
        }
    }

    private static SocketChannel pipelineScrapes(int port) throws IOException, InterruptedException {
        SocketChannel channel = SocketChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
        channel.connect(new InetSocketAddress("127.0.0.1", port));
        channel.configureBlocking(false);
        ByteBuffer requests = ByteBuffer.wrap("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100).getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 100 && requests.hasRemaining(); i++) {
            channel.write(requests);
            Thread.sleep(5);
        }
        return channel;
    }
}
