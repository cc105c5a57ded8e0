package io.sluice.sizing.deploy;

import java.util.List;

import org.junit.jupiter.api.Test;

import static io.sluice.sizing.deploy.JvmBudget.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JvmBudgetTest {

    @Test
    void theLimitIsTheSumOfEveryCappedPoolRoundedUp() {
        JvmBudget jvm = new JvmBudget(512 * MIB, "-XX:+UseParallelGC", 2);

        // 512 heap + 256 direct + 128 metaspace + 64 code cache + 32 GC (1/16) + 36 stacks + 48 native = 1076 -> 1088.
        assertThat(jvm.limitBytes()).isEqualTo(1088 * MIB);
        assertThat(jvm.options()).containsExactly("-Xmx512m", "-XX:MaxDirectMemorySize=256m", "-XX:MaxMetaspaceSize=128m",
                "-XX:ReservedCodeCacheSize=64m", "-XX:+UseParallelGC", "-XX:ActiveProcessorCount=2", "-XX:+ExitOnOutOfMemoryError");
        assertThat(jvm.formula()).isEqualTo("heap 512Mi + direct 256Mi + metaspace 128Mi + code cache 64Mi + GC 32Mi + 36 thread stacks 36Mi"
                + " + native 48Mi = 1076Mi, rounded up to 1088Mi");
    }

    @Test
    void g1AndMoreProcessorsCostMore() {
        JvmBudget parallel = new JvmBudget(1024 * MIB, "-XX:+UseParallelGC", 2);

        assertThat(new JvmBudget(1024 * MIB, "-XX:+UseG1GC", 2).limitBytes()).isGreaterThan(parallel.limitBytes());
        assertThat(new JvmBudget(1024 * MIB, "-XX:+UseParallelGC", 64).limitBytes()).isGreaterThan(parallel.limitBytes());
    }

    @Test
    void aHeapDerivedFromPodMemoryIsTheLargestWhoseBudgetFits() {
        JvmBudget jvm = JvmBudget.forPodMemory(4096 * MIB, "-XX:+UseParallelGC", 2);

        assertThat(jvm.limitBytes()).isLessThanOrEqualTo(4096 * MIB);
        assertThat(new JvmBudget(jvm.heapBytes() + 16 * MIB, "-XX:+UseParallelGC", 2).limitBytes()).isGreaterThan(4096 * MIB);
        // A pod too small for the proxy's fixed pools gets the smallest heap, and a limit above what was asked.
        assertThat(JvmBudget.forPodMemory(256 * MIB, "-XX:+UseParallelGC", 2).heapBytes()).isEqualTo(256 * MIB);
    }

    @Test
    void readsTheHeapAndCollectorTheRunsRecorded() {
        List<String> options = List.of("-Xms64m", "-Xmx2g", "-XX:+UseParallelGC", "-Xmx768M");

        assertThat(JvmBudget.heapOption(options)).hasValue(768 * MIB);
        assertThat(JvmBudget.collectorOption(options)).hasValue("-XX:+UseParallelGC");
        assertThat(JvmBudget.heapOption(List.of("-XX:+UseG1GC"))).isEmpty();
        assertThatThrownBy(() -> new JvmBudget(512 * MIB, "-XX:+UseShenandoah", 2)).hasMessageContaining("not a collector option");
    }
}
