package io.sluice.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds a block of consecutive free loopback ports: a proxy gateway needs its bootstrap port and the node
 * ports after it. Free now is not free forever, so callers bind soon after. The block lies below the kernel's
 * ephemeral range, which outgoing connections take their local ports from: a port picked there could be taken by
 * any client socket between the check and the bind. Not below {@value #LOWEST}: browsers refuse some lower ports
 * (Chromium, 10080).
 */
public final class FreePorts {

    static final int LOWEST = 20_000;
    /** The IANA's dynamic range starts here; the kernel's default starts at 32768. */
    static final int IANA_EPHEMERAL_START = 49_152;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int END = ephemeralStart(EPHEMERAL_RANGE);

    private FreePorts() {
    }

    /** The first of {@code size} consecutive ports that are free on 127.0.0.1 right now. */
    public static int block(int size) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(LOWEST, END - size + 1);
            if (allFree(base, size)) {
                return base;
            }
        }
        throw new IllegalStateException("no block of " + size + " free ports found between " + LOWEST + " and " + END);
    }

    /**
     * The first port of the ephemeral range in {@code rangeFile} (Linux: "32768	60999"), or the IANA's 49152 when the
     * file is absent or unreadable; never below {@value #LOWEST} + 1000, so that there is still room to pick from.
     */
    static int ephemeralStart(Path rangeFile) {
        int start;
        try {
            start = Integer.parseInt(Files.readString(rangeFile).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            start = IANA_EPHEMERAL_START;
        }
        return Math.max(start, LOWEST + 1_000);
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
