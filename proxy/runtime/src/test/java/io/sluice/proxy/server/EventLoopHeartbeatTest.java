package io.sluice.proxy.server;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.channel.DefaultEventLoopGroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Liveness follows whether every event loop still runs tasks. */
class EventLoopHeartbeatTest {

    @Test
    void aLoopStuckInATaskIsNotLiveAndIsAgainOnceItRuns() throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(2);
        try {
            EventLoopHeartbeat heartbeat = new EventLoopHeartbeat(group, Duration.ofMillis(200));
            heartbeat.beat();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                heartbeat.beat();
                return heartbeat.live();
            });

            CountDownLatch release = new CountDownLatch(1);
            group.next().execute(() -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                heartbeat.beat();
                return !heartbeat.live();
            });

            release.countDown();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                heartbeat.beat();
                return heartbeat.live();
            });
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
