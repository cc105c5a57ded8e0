package io.sluice.proxy.runtime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

import static org.assertj.core.api.Assertions.assertThat;

class ClientOutboundBudgetTest {

    private static final int KIB = 1024;
    private final VirtualClusterMetrics metrics = new ProxyMetrics(new SimpleMeterRegistry()).forNode("vc", "bootstrap");
    private final OpenConnections open = new OpenConnections();
    private final EmbeddedChannel behindClient = client();
    private final EmbeddedChannel keepingUpClient = client();
    private final EmbeddedChannel behindBroker = new EmbeddedChannel();
    private final EmbeddedChannel keepingUpBroker = new EmbeddedChannel();

    private static EmbeddedChannel client() {
        EmbeddedChannel ch = new EmbeddedChannel();
        // Marks far above what the test queues: only the budget may stop broker reads here, not the connection's own mark.
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(64 * 1024 * KIB, 128 * 1024 * KIB));
        return ch;
    }

    @AfterEach
    void close() {
        for (EmbeddedChannel ch : new EmbeddedChannel[] {behindClient, keepingUpClient, behindBroker, keepingUpBroker}) {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void overBudgetTheConnectionsFurthestBehindStopReadingTheirBrokersAndResumeOnceTheTotalIsBackUnder() {
        ProxyConnection behind = connection(behindClient, behindBroker);
        ProxyConnection keepingUp = connection(keepingUpClient, keepingUpBroker);
        behindClient.write(Unpooled.wrappedBuffer(new byte[3 * 1024 * KIB]));
        keepingUpClient.write(Unpooled.wrappedBuffer(new byte[100 * KIB]));

        assertThat(open.enforceBudget(4 * 1024 * KIB, 512 * KIB)).as("under budget").isBetween(3100L * KIB, 3300L * KIB);
        runTasks();
        assertThat(behindBroker.config().isAutoRead()).isTrue();

        long total = open.enforceBudget(2 * 1024 * KIB, 512 * KIB);
        runTasks();
        assertThat(total).isGreaterThan(2L * 1024 * KIB);
        assertThat(behindBroker.config().isAutoRead()).as("the queue over the allowance stops reading its broker").isFalse();
        assertThat(keepingUpBroker.config().isAutoRead()).as("a queue within the allowance carries on").isTrue();

        behindClient.flush();
        open.enforceBudget(2 * 1024 * KIB, 512 * KIB);
        runTasks();
        assertThat(behindBroker.config().isAutoRead()).as("under budget again").isTrue();
        assertThat(behind.isClosing() || keepingUp.isClosing()).isFalse();
    }

    private ProxyConnection connection(EmbeddedChannel client, EmbeddedChannel broker) {
        ProxyConnection connection = new ProxyConnection(client, "vc", "gw", metrics);
        open.add(connection);
        connection.backendConnected(broker);
        return connection;
    }

    private void runTasks() {
        behindClient.runPendingTasks();
        keepingUpClient.runPendingTasks();
    }
}
