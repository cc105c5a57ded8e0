package io.sluice.testkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;

class QuietMachineTest {

    @Test
    void waitsUntilTheLoadDropsBelowTheThreshold() throws Exception {
        Iterator<Double> loads = List.of(1.8, 1.2, 0.7, 0.1).iterator();
        List<Duration> slept = new ArrayList<>();

        double load = new QuietMachine(loads::next, slept::add).await(1.0, Duration.ofMinutes(10), new PrintStream(new ByteArrayOutputStream()));

        assertThat(load).isEqualTo(0.7);
        assertThat(slept).hasSize(2);
    }

    @Test
    void givesUpAfterTheLongestWaitAndReturnsTheLoadItSaw() throws Exception {
        List<Duration> slept = new ArrayList<>();

        double load = new QuietMachine(() -> 3.0, slept::add).await(1.0, Duration.ofSeconds(30), new PrintStream(new ByteArrayOutputStream()));

        assertThat(load).isEqualTo(3.0);
        assertThat(slept).hasSize(3);
    }
}
