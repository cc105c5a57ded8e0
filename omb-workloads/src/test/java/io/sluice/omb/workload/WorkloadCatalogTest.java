package io.sluice.omb.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.Workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkloadCatalogTest {

    private final WorkloadCatalog catalog = WorkloadCatalog.load();

    @Test
    void theIndexListsEveryWorkloadFileAndEachIsAValidOmbWorkload() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/omb/workloads"))) {
            List<String> onDisk = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().toList();
            assertThat(catalog.names()).containsExactlyInAnyOrderElementsOf(onDisk);
        }
        for (WorkloadFile file : catalog.select("all")) {
            Workload w = file.workload();
            assertThat(w.producerRate()).as(file.name()).isPositive();
            assertThat(w.messageSize()).as(file.name()).isPositive();
            assertThat(w.testDurationMinutes()).as(file.name()).isPositive();
            // OMB needs a payload: a file of exactly the message size, or generated ones.
            assertThat(file.yaml().contains("payloadFile") || file.yaml().contains("useRandomizedPayloads: true")).as(file.name()).isTrue();
        }
    }

    @Test
    void theIssuesScenariosAreAllThere() {
        assertThat(catalog.groups()).containsExactly("sweep", "multitopic", "fanout", "msgsize", "backlog", "batching");
        assertThat(catalog.select("sweep")).hasSizeGreaterThanOrEqualTo(6)
                .allSatisfy(f -> assertThat(f.workload().topics()).isEqualTo(1));
        // producerRate is the whole workload's: 10 topics at 5,000 msg/s in total, 100 topics at 500.
        assertThat(catalog.select("10topics-1partition-1kb-5k").get(0).workload().producerRate()).isEqualTo(5000);
        assertThat(catalog.select("100topics-1partition-1kb-500").get(0).workload().topics()).isEqualTo(100);
        assertThat(catalog.select("fanout")).allSatisfy(f -> assertThat(f.workload().subscriptionsPerTopic()).isGreaterThan(1));
        assertThat(catalog.select("msgsize").stream().map(f -> f.workload().messageSize()).distinct())
                .containsExactlyInAnyOrder(1024, 10_240, 102_400);
        assertThat(catalog.select("backlog")).singleElement().satisfies(f -> assertThat(f.workload().consumerBacklogSizeGB()).isPositive());
    }

    /** Batching varied at fixed byte rates, so that the cost per request and per byte can be told apart. */
    @Test
    void theBatchingGroupVariesRequestsAtFixedByteRates() {
        List<WorkloadFile> batching = catalog.select("batching");

        assertThat(batching).hasSizeGreaterThanOrEqualTo(6).allSatisfy(f -> {
            assertThat(f.producerConfig()).as(f.name()).containsKeys("linger.ms", "batch.size");
            assertThat(f.name()).as(f.name()).contains("linger" + f.producerConfig().get("linger.ms") + "-");
        });
        // At 20 MB/s of 1 KiB: linger.ms 0, 1, 5 and 50, so the same bytes in very different numbers of requests.
        assertThat(batching.stream().filter(f -> f.workload().messageSize() == 1024 && f.workload().producerRate() == 19_531)
                .map(f -> f.producerConfig().get("linger.ms"))).containsExactlyInAnyOrder("0", "5", "1", "50");
        // More than one byte rate and message size, so bytes vary too.
        assertThat(batching.stream().map(f -> f.workload().producerRate() * f.workload().messageSize()).distinct().count()).isGreaterThanOrEqualTo(3);
        assertThat(batching.stream().map(f -> f.workload().messageSize()).distinct()).containsExactlyInAnyOrder(1024, 100);
        // The other groups run with the driver's producer settings.
        assertThat(catalog.select("sweep")).allSatisfy(f -> assertThat(f.producerConfig()).isEmpty());
    }

    @Test
    void aWorkloadFileOfOnesOwnCanBeGivenByPath(@TempDir Path dir) throws IOException {
        Path own = Files.writeString(dir.resolve("mine.yaml"), "name: mine\ntopics: 2\npartitionsPerTopic: 1\nmessageSize: 512\n"
                + "subscriptionsPerTopic: 1\nconsumerPerSubscription: 1\nproducersPerTopic: 1\nproducerRate: 100\ntestDurationMinutes: 1\n");

        List<WorkloadFile> files = catalog.select("sweep," + own);

        assertThat(files.get(files.size() - 1).workload().messageSize()).isEqualTo(512);
    }

    @Test
    void anUnknownWorkloadListsWhatIsKnown() {
        assertThatThrownBy(() -> catalog.select("swep"))
                .hasMessageContaining("unknown workload 'swep'")
                .hasMessageContaining("sweep, multitopic, fanout, msgsize, backlog");
    }

    @Test
    void aWorkloadWhoseNameDiffersFromItsFileIsRefused() {
        WorkloadFile file = new WorkloadFile("a", "file", "name: b\nmessageSize: 1\nproducerRate: 1\n");

        assertThatThrownBy(file::workload).hasMessageContaining("must have name: a");
    }
}
