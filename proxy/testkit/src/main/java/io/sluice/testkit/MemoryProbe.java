package io.sluice.testkit;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * What this JVM holds, for tests that assert a server's memory stays bounded under hostile peers: the heap in use after
 * a full collection, plus direct memory (the JDK's direct buffer pool, or Netty's own count of the direct memory it
 * allocates, whichever is larger). Servers under test run in the test's JVM, so the growth of this figure
 * across an attack is what the attack made them hold (noise from the in-JVM Kafka broker included: assert bounds with
 * room for a few MB of it).
 */
public final class MemoryProbe {

    private MemoryProbe() {
    }

    /** Heap used after {@link System#gc()} (run a few times until it settles) plus direct memory, in bytes. */
    public static long retainedBytes() {
        return settledHeapBytes() + directBytes();
    }

    public static long settledHeapBytes() {
        long previous = Long.MAX_VALUE;
        long used = 0;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
            if (Math.abs(previous - used) < 1024 * 1024) {
                break;
            }
            previous = used;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return used;
    }

    public static long directBytes() {
        long jdk = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jdk = pool.getMemoryUsed();
            }
        }
        // Netty counts what it allocates whether or not the JDK's pool sees it too (it does when Netty cannot allocate
        // without a cleaner): the larger of the two, not their sum, so nothing is counted twice.
        return Math.max(jdk, nettyDirectBytes());
    }

    /** Netty's count of the direct memory it allocated itself, or -1 when Netty is absent or does not count. */
    public static long nettyDirectBytes() {
        try {
            Method used = Class.forName("io.netty.util.internal.PlatformDependent").getMethod("usedDirectMemory");
            return (long) used.invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return -1;
        }
    }

    public static String describe(long bytes) {
        return String.format("%.1f MiB", bytes / 1048576.0);
    }
}
