package io.sluice.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds a block of consecutive free loopback ports: a proxy gateway needs its bootstrap port and the node
 * ports after it. Free now is not free forever, so callers bind soon after.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** The first of {@code size} consecutive ports that are free on 127.0.0.1 right now. */
    public static int block(int size) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            if (allFree(base, size)) {
                return base;
            }
        }
        throw new IllegalStateException("no block of " + size + " free ports found");
    }

    private static boolean allFree(int base, int size) {
        for (int p = base; p < base + size; p++) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress("127.0.0.1", p));
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
