package io.sluice.filter.audit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The sinks: a full buffer drops and counts without blocking the caller; the file rolls by size and keeps a bounded number of files. */
class AuditSinksTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AuditMetrics metrics = new AuditMetrics(registry, "audit");

    private double count(String name, String sink) {
        return registry.get(name).tags("filter", "audit", "sink", sink).counter().count();
    }

    /** A line of exactly {@code bytes} bytes, newline included, saying its number. */
    private static byte[] line(int number, int bytes) {
        String head = "{\"n\":" + number + ",\"pad\":\"";
        String tail = "\"}\n";
        return (head + "x".repeat(bytes - head.length() - tail.length()) + tail).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void whileTheDestinationIsStuckOffersNeverBlockAndWhatTheBufferCannotHoldIsDroppedAndCounted() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> got = new ArrayList<>();
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {
                throw new UnsupportedOperationException();
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) throws IOException {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                got.add(new String(b, off, len, StandardCharsets.UTF_8));
            }
        };
        StdoutSink sink = new StdoutSink("audit", new AuditConfig.Stdout(AuditConfig.MIN_BUFFER_BYTES), metrics, new PrintStream(stuck, false, StandardCharsets.UTF_8));
        try {
            sink.offer("k", line(0, 1000));
            entered.await();
            // The writer holds line 0 (its bytes still count against the buffer) and is stuck writing it.
            for (int i = 1; i <= 300; i++) {
                sink.offer("k", line(i, 1000));
            }
            int fits = (int) (AuditConfig.MIN_BUFFER_BYTES / 1000);
            assertThat(count("sluice.audit.events.dropped", "stdout")).isEqualTo(301 - fits);
            assertThat(registry.get("sluice.audit.buffer.bytes").tags("sink", "stdout").gauge().value()).isEqualTo(fits * 1000.0);

            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> count("sluice.audit.events.written", "stdout") == fits);
            assertThat(got).hasSize(fits);
            assertThat(got.get(fits - 1)).startsWith("{\"n\":" + (fits - 1) + ",");
        } finally {
            release.countDown();
            sink.close();
        }
        sink.offer("k", line(999, 1000));
        assertThat(count("sluice.audit.events.dropped", "stdout")).as("after close, offers are dropped").isEqualTo(302 - (int) (AuditConfig.MIN_BUFFER_BYTES / 1000));
    }

    @Test
    void theFileRollsBeforeALineWouldPassItsSizeAndKeepsMaxFilesFilesOfWholeLinesInOrder(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("audit.jsonl");
        Files.write(path, line(-1, 1000));
        FileSink sink = new FileSink("audit", new AuditConfig.File(path.toString(), 65_536, 3, AuditConfig.DEFAULT_BUFFER_BYTES), metrics);
        try {
            for (int i = 0; i < 300; i++) {
                sink.offer("k", line(i, 1000));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> count("sluice.audit.events.written", "file") == 300);
        } finally {
            sink.close();
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly("audit.jsonl", "audit.jsonl.1", "audit.jsonl.2");
        }
        // 65 lines of 1,000 bytes fit in 65,536, and the line already there was appended to: files of lines -1..63,
        // 64..128, 129..193, 194..258 and 259..299, of which the last three are kept.
        assertThat(numbers(dir.resolve("audit.jsonl.2"))).isEqualTo(IntStream.range(129, 194).boxed().toList());
        assertThat(numbers(dir.resolve("audit.jsonl.1"))).isEqualTo(IntStream.range(194, 259).boxed().toList());
        assertThat(numbers(path)).isEqualTo(IntStream.range(259, 300).boxed().toList());
        for (String name : List.of("audit.jsonl", "audit.jsonl.1", "audit.jsonl.2")) {
            assertThat(Files.size(dir.resolve(name))).isLessThanOrEqualTo(65_536);
        }
    }

    private static List<Integer> numbers(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(l -> Integer.parseInt(l.substring(5, l.indexOf(',')))).toList();
    }

    @Test
    void aFileThatCannotBeOpenedStopsTheStartNamingTheField(@TempDir Path dir) {
        assertThatThrownBy(() -> new FileSink("audit", new AuditConfig.File(dir.resolve("missing/audit.jsonl").toString(), 65_536, 2,
                AuditConfig.DEFAULT_BUFFER_BYTES), metrics)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("file.path: cannot open");
        assertThat(Arrays.asList(dir.toFile().list())).isEmpty();
    }
}
