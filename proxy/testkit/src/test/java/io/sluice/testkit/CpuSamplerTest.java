package io.sluice.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.testkit.CpuSampler.Sample;

import static org.assertj.core.api.Assertions.assertThat;

class CpuSamplerTest {

    private static final long SELF = ProcessHandle.current().pid();

    @Test
    void processCpuGrowsWhileAThreadSpins() throws Exception {
        long before = CpuSampler.processCpuNanos(SELF);
        spinFor(Duration.ofMillis(300));
        long after = CpuSampler.processCpuNanos(SELF);

        // A spinning thread is charged nearly all of its wall time; allow for a loaded machine.
        assertThat(after - before).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aCommandNameMayHoldSpacesAndParentheses() {
        String stat = "4242 (evil) (name ) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 "
                + "250 75 0 0 20 0 1 0 123456 10485760 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";

        assertThat(CpuSampler.cpuTicks(stat)).isEqualTo(325);
        assertThat(CpuSampler.systemTicks(stat)).isEqualTo(75);
    }

    @Test
    void rssOfSelfIsPositive() {
        assertThat(CpuSampler.rssBytes(SELF)).isGreaterThan(1024 * 1024);
    }

    @Test
    void samplerRecordsGrowingCpuAndStopsCleanly() throws Exception {
        CpuSampler.Sampler sampler = new CpuSampler.Sampler(SELF, Duration.ofMillis(20)).start();
        spinFor(Duration.ofMillis(300));
        List<Sample> samples = sampler.stop();

        assertThat(samples.size()).isGreaterThanOrEqualTo(2);
        Sample first = samples.get(0);
        Sample last = samples.get(samples.size() - 1);
        assertThat(last.cpuNanos() - first.cpuNanos()).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(last.epochMillis()).isGreaterThanOrEqualTo(first.epochMillis());
        assertThat(samples).allSatisfy(s -> assertThat(s.rssBytes()).isPositive());

        int count = samples.size();
        Thread.sleep(100);
        assertThat(sampler.samples()).hasSize(count);
    }

    @Test
    void samplerOfAnExitedProcessKeepsWhatItHad() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "0.3").start();
        CpuSampler.Sampler sampler = new CpuSampler.Sampler(sleeper.pid(), Duration.ofMillis(50)).start();
        assertThat(sleeper.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200);

        List<Sample> samples = sampler.stop();
        assertThat(samples).isNotEmpty();
    }

    @Test
    void cgroupV2UsageAndLimit(@TempDir Path root) throws IOException {
        Path own = Files.createDirectories(root.resolve("system.slice/sluice.service"));
        Files.writeString(own.resolve("cpu.stat"), "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
        Files.writeString(own.resolve("cpu.max"), "150000 100000\n");
        List<String> cgroups = List.of("0::/system.slice/sluice.service");

        assertThat(CpuSampler.cgroupCpuUsageNanos(root, cgroups)).hasValue(1_500_000L);
        assertThat(CpuSampler.cgroupCpuLimitCores(root, cgroups)).hasValue(1.5);

        Files.writeString(own.resolve("cpu.max"), "max 100000\n");
        assertThat(CpuSampler.cgroupCpuLimitCores(root, cgroups)).isEmpty();
    }

    @Test
    void cgroupV2InsideAContainerFallsBackToTheMountRoot(@TempDir Path root) throws IOException {
        Files.writeString(root.resolve("cpu.stat"), "usage_usec 42\n");

        assertThat(CpuSampler.cgroupCpuUsageNanos(root, List.of("0::/docker/abc123"))).hasValue(42_000L);
    }

    @Test
    void cgroupV1UsageAndLimit(@TempDir Path root) throws IOException {
        Path acct = Files.createDirectories(root.resolve("cpu,cpuacct/job"));
        Files.writeString(acct.resolve("cpuacct.usage"), "987654321\n");
        Files.writeString(acct.resolve("cpu.cfs_quota_us"), "200000\n");
        Files.writeString(acct.resolve("cpu.cfs_period_us"), "100000\n");
        List<String> cgroups = List.of("4:cpu,cpuacct:/job", "0::/");

        assertThat(CpuSampler.cgroupCpuUsageNanos(root, cgroups)).hasValue(987_654_321L);
        assertThat(CpuSampler.cgroupCpuLimitCores(root, cgroups)).hasValue(2.0);

        Files.writeString(acct.resolve("cpu.cfs_quota_us"), "-1\n");
        assertThat(CpuSampler.cgroupCpuLimitCores(root, cgroups)).isEmpty();
    }

    @Test
    void aProcessInACgroupOfItsOwnIsReadFromThatCgroup(@TempDir Path root) throws IOException {
        Path theirs = Files.createDirectories(root.resolve("kubepods/pod1/proxy"));
        Files.writeString(theirs.resolve("cpu.stat"), "usage_usec 2500\n");
        Files.writeString(theirs.resolve("cpu.max"), "50000 100000\n");

        CpuSampler.CpuSource source = CpuSampler.sourceFor(root, List.of("0::/kubepods/pod1/proxy"), List.of("0::/user.slice"), 42);

        assertThat(source.description()).startsWith("cgroup ").contains("kubepods/pod1/proxy");
        assertThat(source.cpuNanos().getAsLong()).isEqualTo(2_500_000L);
        assertThat(source.limitCores()).hasValue(0.5);
    }

    @Test
    void aCgroupSharedWithTheLoadGeneratorIsNotUsed(@TempDir Path root) throws IOException {
        Files.writeString(Files.createDirectories(root.resolve("user.slice")).resolve("cpu.stat"), "usage_usec 99\n");

        CpuSampler.CpuSource shared = CpuSampler.sourceFor(root, List.of("0::/user.slice"), List.of("0::/user.slice"), SELF);
        CpuSampler.CpuSource rootCgroup = CpuSampler.sourceFor(root, List.of("0::/"), List.of("0::/user.slice"), SELF);

        assertThat(shared.description()).startsWith("/proc/" + SELF + "/stat");
        assertThat(rootCgroup.description()).startsWith("/proc/");
        assertThat(shared.cpuNanos().getAsLong()).isPositive();
    }

    @Test
    void noCgroupFilesMeansEmpty(@TempDir Path root) {
        assertThat(CpuSampler.cgroupCpuUsageNanos(root, List.of("0::/"))).isEmpty();
        assertThat(CpuSampler.cgroupCpuLimitCores(root, List.of())).isEmpty();
    }

    @Test
    void thisMachinesCgroupReadsWithoutFailing() {
        // Whatever this host exposes, a value that is present must be sane.
        CpuSampler.cgroupCpuUsageNanos().ifPresent(nanos -> assertThat(nanos).isPositive());
        CpuSampler.cgroupCpuLimitCores().ifPresent(cores -> assertThat(cores).isPositive());
    }

    private static void spinFor(Duration duration) throws InterruptedException {
        Thread spinner = new Thread(() -> burnCpu(duration), "spin");
        spinner.start();
        spinner.join();
    }

    /**
     * Spins until the thread itself has used {@code cpu} of CPU time (not wall time), so a loaded machine
     * makes the test slower, never wrong.
     */
    private static void burnCpu(Duration cpu) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        while (threads.getCurrentThreadCpuTime() - start < cpu.toNanos()) {
            for (int i = 0; i < 10_000; i++) {
                Thread.onSpinWait();
            }
        }
    }
}
