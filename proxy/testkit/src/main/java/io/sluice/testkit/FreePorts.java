package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds a block of consecutive free loopback ports: a proxy gateway needs its bootstrap port and the node
 * ports after it. Free now is not free forever, so callers bind soon after. The block lies below the kernel's
 * ephemeral range, which outgoing connections take their local ports from: a port picked there could be taken by
 * any client socket between the check and the bind. Not below {@value #LOWEST}: browsers refuse some lower ports
 * (Chromium, 10080).
 * <p>
 * A port is handed out once per JVM: a caller that takes two blocks before binding either (a proxy and the relay in
 * front of it) would otherwise be given overlapping ones about once in a hundred runs, and one of its binds would fail
 * with "Address already in use". A test JVM takes a few hundred of the ~12,000 ports in the range. Test JVMs running
 * at once (Maven building modules in parallel) keep out of each other's blocks the same way: each holds a lock on one
 * byte per port it was given, in a file all of them share, until it exits (the system drops a process's locks then,
 * however it ends).
 */
public final class FreePorts {

    static final int LOWEST = 20_000;
    /** The IANA's dynamic range starts here; the kernel's default starts at 32768. */
    static final int IANA_EPHEMERAL_START = 49_152;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int END = ephemeralStart(EPHEMERAL_RANGE);
    /** The ports this JVM has been given; guarded by the class. */
    private static final BitSet HANDED_OUT = new BitSet();
    private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "sluice-free-ports.lock");
    /** Open for the JVM's life: closing it would release every lock this JVM holds on it. Null if it could not be opened. */
    private static final FileChannel SHARED = open(LOCKS);

    private FreePorts() {
    }

    /** The first of {@code size} consecutive ports that are free on 127.0.0.1 right now. */
    public static synchronized int block(int size) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(LOWEST, END - size + 1);
            int taken = HANDED_OUT.nextSetBit(base);
            if (taken < 0 || taken >= base + size) {
                if (allFree(base, size) && lockedForThisJvm(base, size)) {
                    HANDED_OUT.set(base, base + size);
                    return base;
                }
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
            // Read to the end of the stream: a /proc file reports size 0, and Files.readString, which sizes its read by
            // that, returned "3" of "32768\t60999" here, which made the range 20000-21000 and collisions common.
            try (InputStream in = Files.newInputStream(rangeFile)) {
                start = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            start = IANA_EPHEMERAL_START;
        }
        return Math.max(start, LOWEST + 1_000);
    }

    /** Takes the block's bytes in the shared lock file, unless another JVM holds one of them. */
    private static boolean lockedForThisJvm(int base, int size) {
        if (SHARED == null) {
            return true;
        }
        try {
            FileLock lock = SHARED.tryLock(base, size, false);
            // Kept until the JVM exits: the lock is what keeps the block this JVM's.
            return lock != null;
        } catch (IOException e) {
            return true;
        }
    }

    private static FileChannel open(Path file) {
        try {
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException | SecurityException e) {
            return null;
        }
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
