package io.sluice.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class FreePortsTest {

    @TempDir
    Path dir;

    @Test
    void theBlockEndsBelowTheEphemeralRangeTheKernelNames() throws IOException {
        assertThat(FreePorts.ephemeralStart(Files.writeString(dir.resolve("range"), "32768\t60999\n"))).isEqualTo(32768);
        assertThat(FreePorts.ephemeralStart(Files.writeString(dir.resolve("tuned"), "40000 65000"))).isEqualTo(40000);
    }

    @Test
    void theKernelsOwnFileIsReadWholeThoughItReportsSizeZero() throws IOException {
        Path proc = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        Assumptions.assumeTrue(Files.isReadable(proc), "no /proc range file on this system");
        int kernel = Integer.parseInt(Files.readAllLines(proc).get(0).trim().split("\\s+")[0]);
        assertThat(FreePorts.ephemeralStart(proc)).isEqualTo(Math.max(kernel, 21_000));
    }

    @Test
    void withoutTheFileItStopsWhereTheIanaRangeBegins() throws IOException {
        assertThat(FreePorts.ephemeralStart(dir.resolve("absent"))).isEqualTo(49152);
        assertThat(FreePorts.ephemeralStart(Files.writeString(dir.resolve("garbled"), "many"))).isEqualTo(49152);
    }

    @Test
    void aRangeStartingVeryLowStillLeavesRoomAboveTheLowestPort() throws IOException {
        assertThat(FreePorts.ephemeralStart(Files.writeString(dir.resolve("low"), "1024 65000"))).isEqualTo(21000);
    }

    @Test
    void blocksLieBetweenTheLowestPortAndTheEphemeralRange() {
        int end = FreePorts.ephemeralStart(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        for (int i = 0; i < 50; i++) {
            int base = FreePorts.block(8);
            assertThat(base).isGreaterThanOrEqualTo(20_000);
            assertThat(base + 8).isLessThanOrEqualTo(end);
        }
    }

    @Test
    void noPortIsHandedOutTwiceEvenWhenNothingHasBoundTheFirstBlockYet() {
        BitSet seen = new BitSet();
        for (int i = 0; i < 300; i++) {
            int base = FreePorts.block(8);
            assertThat(seen.get(base, base + 8).isEmpty()).as("block %d at %d overlaps an earlier one", i, base).isTrue();
            seen.set(base, base + 8);
        }
    }

    @Test
    void anotherJvmIsNeverGivenAPortThisOneWasGiven() throws Exception {
        BitSet ours = new BitSet();
        for (int i = 0; i < 200; i++) {
            int base = FreePorts.block(8);
            ours.set(base, base + 8);
        }
        Path out = dir.resolve("child-blocks");
        Process child = new ProcessBuilder(JavaCommand.of(List.of("-Xmx64m"), TakeBlocks.class.getName(), List.of("400")))
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child JVM finished").isTrue();
        assertThat(child.exitValue()).isZero();
        List<String> theirs = Files.readAllLines(out);
        assertThat(theirs).hasSize(400);
        for (String line : theirs) {
            int base = Integer.parseInt(line.trim());
            assertThat(ours.get(base, base + 8).isEmpty()).as("the child's block at %d overlaps one of ours", base).isTrue();
        }
    }

    /** The other JVM: takes blocks of eight and prints their first ports. */
    public static final class TakeBlocks {
        public static void main(String[] args) {
            for (int i = 0; i < Integer.parseInt(args[0]); i++) {
                System.out.println(FreePorts.block(8));
            }
        }
    }
}
