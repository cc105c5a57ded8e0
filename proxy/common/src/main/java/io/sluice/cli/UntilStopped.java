package io.sluice.cli;

import java.util.concurrent.CountDownLatch;

/** How every long-running command ends: it serves until SIGTERM/SIGINT, then closes what it started. */
public final class UntilStopped {

    private UntilStopped() {
    }

    public static void serve(AutoCloseable service, String name) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                service.close();
            } catch (Exception e) {
                System.err.println(name + ": error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, name + "-shutdown"));
        stopped.await();
    }
}
