package io.sluice.sizing.deploy;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM a pod runs and the memory limit that holds all of it, not only the heap. A container's memory limit is
 * enforced by the kernel on the whole process (its resident set): when the JVM outgrows it the pod is killed with no
 * Java stack trace. So every large pool gets an explicit cap in {@link #options()}, and the limit is their sum:
 *
 * <pre>
 *   heap (-Xmx)
 * + direct memory (-XX:MaxDirectMemorySize, half the heap, at least 128 MiB: Netty's socket buffers)
 * + metaspace (-XX:MaxMetaspaceSize 128 MiB; the proxy uses about 28 MiB after start)
 * + code cache (-XX:ReservedCodeCacheSize 64 MiB)
 * + the collector's own structures (1/16 of the heap for Parallel and Serial, 1/8 for G1 and others)
 * + thread stacks (2 event loops per processor + 32 other threads, 1 MiB each)
 * + 48 MiB for the rest (symbol tables, the class-data archive, malloc arenas)
 * </pre>
 *
 * rounded up to 64 MiB. A pool that reaches its cap fails inside the JVM, with a message, instead of the kernel killing
 * the pod: a full heap or metaspace is an {@code OutOfMemoryError} that {@code -XX:+ExitOnOutOfMemoryError} turns into
 * an exit Kubernetes restarts; Netty refuses a direct allocation beyond its cap, failing only that connection.
 *
 * <p>The collector and the processor count are explicit too. The JVM picks its collector and sizes its thread pools
 * from what the container shows it: with a CPU limit under 2 cores or a memory limit under 1792 MB it treats the
 * machine as a client and silently switches to the Serial collector, and it sizes Netty's event loops and the GC
 * threads from the CPU limit rounded up. The measured runs used a given collector on a given number of processors; a
 * pod that changes either is no longer the machine the CPU fit describes.
 *
 * @param heapBytes  {@code -Xmx}
 * @param collector  the collector's option, e.g. {@code -XX:+UseParallelGC}
 * @param processors {@code -XX:ActiveProcessorCount}
 */
public record JvmBudget(long heapBytes, String collector, int processors) {

    public static final long MIB = 1L << 20;
    static final long ROUND = 64 * MIB;
    static final long MIN_DIRECT = 128 * MIB;
    static final long METASPACE = 128 * MIB;
    static final long CODE_CACHE = 64 * MIB;
    static final long STACK = MIB;
    static final int OTHER_THREADS = 32;
    static final long NATIVE_REST = 48 * MIB;
    /** The smallest heap a pod is given when the heap is derived from a pod's memory. */
    static final long MIN_HEAP = 256 * MIB;

    private static final Pattern HEAP = Pattern.compile("-Xmx(\\d+)([kKmMgG]?)");
    private static final Pattern COLLECTOR = Pattern.compile("-XX:\\+Use(\\w+)GC");

    public JvmBudget {
        if (heapBytes < 16 * MIB) {
            throw new IllegalArgumentException("a heap of " + heapBytes + " bytes is too small for the proxy");
        }
        if (!COLLECTOR.matcher(collector).matches()) {
            throw new IllegalArgumentException("not a collector option: " + collector);
        }
        if (processors < 1) {
            throw new IllegalArgumentException("processors must be at least 1, not " + processors);
        }
    }

    /**
     * The largest heap whose budget fits {@code podBytes} (at least {@link #MIN_HEAP}): for pods sized by their
     * measured memory (the bridge) rather than by the heap they were measured with.
     */
    public static JvmBudget forPodMemory(long podBytes, String collector, int processors) {
        long heap = MIN_HEAP;
        while (new JvmBudget(heap + 16 * MIB, collector, processors).limitBytes() <= podBytes) {
            heap += 16 * MIB;
        }
        return new JvmBudget(heap, collector, processors);
    }

    /** The value of {@code -Xmx} in {@code options}, in bytes, if there is one (the last wins, as in the JVM). */
    public static Optional<Long> heapOption(List<String> options) {
        Optional<Long> heap = Optional.empty();
        for (String option : options) {
            Matcher m = HEAP.matcher(option);
            if (m.matches()) {
                long unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "k" -> 1L << 10;
                    case "m" -> MIB;
                    case "g" -> 1L << 30;
                    default -> 1;
                };
                heap = Optional.of(Long.parseLong(m.group(1)) * unit);
            }
        }
        return heap;
    }

    /** The collector option in {@code options}, if there is one. */
    public static Optional<String> collectorOption(List<String> options) {
        Optional<String> collector = Optional.empty();
        for (String option : options) {
            if (COLLECTOR.matcher(option).matches()) {
                collector = Optional.of(option);
            }
        }
        return collector;
    }

    public long directBytes() {
        return Math.max(MIN_DIRECT, heapBytes / 2);
    }

    /** Card tables and mark bitmaps: measured 28 MiB for a 512 MiB Parallel heap; G1's remembered sets cost more. */
    public long collectorBytes() {
        boolean compact = collector.equals("-XX:+UseParallelGC") || collector.equals("-XX:+UseSerialGC");
        return heapBytes / (compact ? 16 : 8);
    }

    public int threads() {
        return 2 * processors + OTHER_THREADS;
    }

    private long sum() {
        return heapBytes + directBytes() + METASPACE + CODE_CACHE + collectorBytes() + threads() * STACK + NATIVE_REST;
    }

    /** The memory request and limit of the container. */
    public long limitBytes() {
        return roundUp(sum());
    }

    /** For {@code SLUICE_JAVA_OPTS}. */
    public List<String> options() {
        return List.of("-Xmx" + mib(heapBytes), "-XX:MaxDirectMemorySize=" + mib(directBytes()), "-XX:MaxMetaspaceSize=" + mib(METASPACE),
                "-XX:ReservedCodeCacheSize=" + mib(CODE_CACHE), collector, "-XX:ActiveProcessorCount=" + processors, "-XX:+ExitOnOutOfMemoryError");
    }

    /** The sum behind {@link #limitBytes()}, term by term, for the reports. */
    public String formula() {
        return String.format(Locale.ROOT, "heap %dMi + direct %dMi + metaspace %dMi + code cache %dMi + GC %dMi + %d thread stacks %dMi"
                        + " + native %dMi = %dMi, rounded up to %dMi", heapBytes / MIB, directBytes() / MIB, METASPACE / MIB, CODE_CACHE / MIB,
                collectorBytes() / MIB, threads(), threads() * STACK / MIB, NATIVE_REST / MIB, sum() / MIB, limitBytes() / MIB);
    }

    static long roundUp(long bytes) {
        return (bytes + ROUND - 1) / ROUND * ROUND;
    }

    private static String mib(long bytes) {
        return (bytes + MIB - 1) / MIB + "m";
    }
}
