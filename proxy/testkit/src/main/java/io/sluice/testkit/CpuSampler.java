package io.sluice.testkit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * CPU and memory of processes and threads as Linux accounts them, read from /proc and the cgroup filesystem.
 * Every benchmark measures through here so that "CPU" means the same thing in every report: user plus system
 * time charged by the kernel, not a JVM's own estimate.
 */
public final class CpuSampler {

    private static final Logger LOG = LoggerFactory.getLogger(CpuSampler.class);
    private static final Path PROC = Path.of("/proc");
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    // Fields of /proc/<pid>/stat counted from the state field, the first one after the command name.
    private static final int UTIME_AFTER_COMM = 11;
    private static final int STIME_AFTER_COMM = 12;

    private CpuSampler() {
    }

    /** User plus system CPU time of the whole process, all threads, in nanoseconds. */
    public static long processCpuNanos(long pid) {
        return ticksToNanos(cpuTicks(read(PROC.resolve(Long.toString(pid)).resolve("stat"))));
    }

    /** The part of {@link #processCpuNanos} spent in the kernel (stime): system calls, and on loopback the receivers' TCP input too. */
    public static long processSystemCpuNanos(long pid) {
        return ticksToNanos(systemTicks(read(PROC.resolve(Long.toString(pid)).resolve("stat"))));
    }

    /** CPU used by everything in this process's cgroup (a container, say), if the cgroup filesystem shows it. */
    public static OptionalLong cgroupCpuUsageNanos() {
        return cgroupCpuUsageNanos(CGROUP_ROOT, ownCgroups());
    }

    /** The CPU quota of this process's cgroup in cores; empty when there is none or it cannot be read. */
    public static OptionalDouble cgroupCpuLimitCores() {
        return cgroupCpuLimitCores(CGROUP_ROOT, ownCgroups());
    }

    /**
     * Where to read another process's CPU time: the counter of its own cgroup when it has one (a container or a
     * systemd scope of its own, which also counts any children it forks), otherwise its utime+stime in /proc. A
     * cgroup shared with this process is never used: it would charge the load generator's CPU to the process.
     */
    public static CpuSource sourceFor(long pid) {
        List<String> theirs = readIfPresent(PROC.resolve(Long.toString(pid)).resolve("cgroup"))
                .map(text -> List.of(text.split("\n")))
                .orElse(List.of());
        return sourceFor(CGROUP_ROOT, theirs, ownCgroups(), pid);
    }

    static CpuSource sourceFor(Path root, List<String> theirs, List<String> ours, long pid) {
        OptionalDouble limit = cgroupCpuLimitCores(root, theirs);
        String v2 = cgroupPath(theirs, null);
        if (!v2.equals("/") && !v2.equals(cgroupPath(ours, null))) {
            Path dir = root.resolve(v2.substring(1));
            if (readIfPresent(dir.resolve("cpu.stat")).isPresent()) {
                return new CpuSource("cgroup " + dir + " (cpu.stat usage_usec)", () -> v2UsageNanos(dir), limit);
            }
        }
        String v1 = cgroupPath(theirs, "cpuacct");
        if (!v1.equals("/") && !v1.equals(cgroupPath(ours, "cpuacct"))) {
            for (String mount : List.of("cpuacct", "cpu,cpuacct", "cpuacct,cpu")) {
                Path dir = root.resolve(mount).resolve(v1.substring(1));
                if (readIfPresent(dir.resolve("cpuacct.usage")).isPresent()) {
                    return new CpuSource("cgroup " + dir + " (cpuacct.usage)",
                            () -> Long.parseLong(read(dir.resolve("cpuacct.usage")).trim()), limit);
                }
            }
        }
        return new CpuSource("/proc/" + pid + "/stat (utime+stime)", () -> processCpuNanos(pid), limit);
    }

    // Read from exactly this directory: the fall-back to the mount root that suits our own cgroup would, for another
    // process's, silently count the whole machine.
    private static long v2UsageNanos(Path dir) {
        for (String line : read(dir.resolve("cpu.stat")).split("\n")) {
            if (line.startsWith("usage_usec ")) {
                return Long.parseLong(line.substring("usage_usec ".length()).trim()) * 1_000;
            }
        }
        throw new IllegalStateException(dir.resolve("cpu.stat") + " has no usage_usec line");
    }

    /**
     * A process's CPU counter and where it comes from, for reports.
     *
     * @param limitCores the CPU quota of the process's cgroup, if it has one
     */
    public record CpuSource(String description, LongSupplier cpuNanos, OptionalDouble limitCores) {
    }

    /** Resident set size; 0 for a process without user memory (a kernel thread). */
    public static long rssBytes(long pid) {
        String status = read(PROC.resolve(Long.toString(pid)).resolve("status"));
        for (String line : status.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
                return Long.parseLong(parts[0]) * 1024;
            }
        }
        return 0;
    }

    static long cpuTicks(String statLine) {
        String[] fields = afterComm(statLine).split("\\s+");
        return Long.parseLong(fields[UTIME_AFTER_COMM]) + Long.parseLong(fields[STIME_AFTER_COMM]);
    }

    static long systemTicks(String statLine) {
        return Long.parseLong(afterComm(statLine).split("\\s+")[STIME_AFTER_COMM]);
    }

    private static String afterComm(String statLine) {
        int close = statLine.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc stat line: " + statLine);
        }
        return statLine.substring(close + 1).trim();
    }

    static OptionalLong cgroupCpuUsageNanos(Path root, List<String> ownCgroups) {
        for (Path dir : candidates(root, "", cgroupPath(ownCgroups, null))) {
            Optional<String> stat = readIfPresent(dir.resolve("cpu.stat"));
            if (stat.isPresent()) {
                for (String line : stat.get().split("\n")) {
                    if (line.startsWith("usage_usec ")) {
                        return OptionalLong.of(Long.parseLong(line.substring("usage_usec ".length()).trim()) * 1_000);
                    }
                }
            }
        }
        String v1Path = cgroupPath(ownCgroups, "cpuacct");
        for (String mount : List.of("cpuacct", "cpu,cpuacct", "cpuacct,cpu")) {
            for (Path dir : candidates(root, mount, v1Path)) {
                Optional<String> usage = readIfPresent(dir.resolve("cpuacct.usage"));
                if (usage.isPresent()) {
                    return OptionalLong.of(Long.parseLong(usage.get().trim()));
                }
            }
        }
        return OptionalLong.empty();
    }

    static OptionalDouble cgroupCpuLimitCores(Path root, List<String> ownCgroups) {
        for (Path dir : candidates(root, "", cgroupPath(ownCgroups, null))) {
            Optional<String> max = readIfPresent(dir.resolve("cpu.max"));
            if (max.isPresent()) {
                String[] parts = max.get().trim().split("\\s+");
                if (parts[0].equals("max")) {
                    return OptionalDouble.empty();
                }
                return OptionalDouble.of(Double.parseDouble(parts[0]) / Double.parseDouble(parts[1]));
            }
        }
        String v1Path = cgroupPath(ownCgroups, "cpu");
        for (String mount : List.of("cpu", "cpu,cpuacct", "cpuacct,cpu")) {
            for (Path dir : candidates(root, mount, v1Path)) {
                Optional<String> quota = readIfPresent(dir.resolve("cpu.cfs_quota_us"));
                Optional<String> period = readIfPresent(dir.resolve("cpu.cfs_period_us"));
                if (quota.isPresent() && period.isPresent()) {
                    long quotaMicros = Long.parseLong(quota.get().trim());
                    return quotaMicros < 0
                            ? OptionalDouble.empty()
                            : OptionalDouble.of((double) quotaMicros / Long.parseLong(period.get().trim()));
                }
            }
        }
        return OptionalDouble.empty();
    }

    /**
     * This process's cgroup under the given v1 controller, or the v2 one for {@code null}, as /proc/self/cgroup
     * names it: "0::/path" for v2, "4:cpu,cpuacct:/path" for v1.
     */
    private static String cgroupPath(List<String> ownCgroups, String controller) {
        for (String line : ownCgroups) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            boolean matches = controller == null
                    ? parts[0].equals("0") && parts[1].isEmpty()
                    : List.of(parts[1].split(",")).contains(controller);
            if (matches) {
                return parts[2];
            }
        }
        return "/";
    }

    // Inside a container without its own cgroup namespace, /proc/self/cgroup names a host path that the
    // container's mount does not show; its own cgroup is then the mount's root.
    private static List<Path> candidates(Path root, String mount, String cgroupPath) {
        Path base = mount.isEmpty() ? root : root.resolve(mount);
        String relative = cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath;
        return relative.isEmpty() ? List.of(base) : List.of(base.resolve(relative), base);
    }

    private static List<String> ownCgroups() {
        return readIfPresent(PROC.resolve("self").resolve("cgroup"))
                .map(text -> List.of(text.split("\n")))
                .orElse(List.of());
    }

    private static long ticksToNanos(long ticks) {
        return ticks * (1_000_000_000L / ClockTicks.PER_SECOND);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // For files that may vanish as we read them (an exiting thread) or not exist on this kernel.
    private static Optional<String> readIfPresent(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Kernel clock ticks per second, asked once: nearly always 100, but it is a kernel build option. */
    private static final class ClockTicks {
        static final long PER_SECOND = query();

        private static long query() {
            try {
                Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
                String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
                if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
                    long ticks = Long.parseLong(out);
                    if (ticks > 0 && 1_000_000_000L % ticks == 0) {
                        return ticks;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                LOG.debug("getconf CLK_TCK failed, assuming 100: {}", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 100;
        }
    }

    public record Sample(long epochMillis, long cpuNanos, long rssBytes) {
    }

    /**
     * Samples one process on a daemon thread. It takes a sample when started and another when stopped, so even a
     * run shorter than the interval yields a first and last sample to difference.
     */
    public static final class Sampler implements AutoCloseable {

        private final long pid;
        private final Duration interval;
        private final LongSupplier cpuNanos;
        private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
        private ScheduledExecutorService executor;

        public Sampler(long pid, Duration interval) {
            this(pid, interval, () -> processCpuNanos(pid));
        }

        /** Samples CPU from {@code cpuNanos} (a {@link CpuSource}'s, say) and memory from /proc. */
        public Sampler(long pid, Duration interval, LongSupplier cpuNanos) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("interval must be positive: " + interval);
            }
            this.pid = pid;
            this.interval = interval;
            this.cpuNanos = cpuNanos;
        }

        public synchronized Sampler start() {
            if (executor != null) {
                throw new IllegalStateException("already started");
            }
            executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "cpu-sampler-" + pid);
                thread.setDaemon(true);
                return thread;
            });
            executor.scheduleAtFixedRate(this::sample, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
            return this;
        }

        /** Stops sampling and returns every sample, oldest first. */
        public synchronized List<Sample> stop() {
            if (executor != null) {
                executor.shutdownNow();
                try {
                    executor.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                executor = null;
                sample();
            }
            return samples();
        }

        /** The samples so far, oldest first. */
        public List<Sample> samples() {
            synchronized (samples) {
                return List.copyOf(samples);
            }
        }

        @Override
        public void close() {
            stop();
        }

        private void sample() {
            try {
                samples.add(new Sample(System.currentTimeMillis(), cpuNanos.getAsLong(), rssBytes(pid)));
            } catch (UncheckedIOException e) {
                // The process has exited; the samples taken before remain.
                LOG.debug("Process {} no longer readable: {}", pid, e.toString());
            }
        }
    }
}
