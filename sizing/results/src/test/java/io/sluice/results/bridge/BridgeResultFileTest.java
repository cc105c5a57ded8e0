package io.sluice.results.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.MalformedResultException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BridgeResultFileTest {

    @TempDir
    Path dir;

    private static final BridgeResultFile.Point IDLE = new BridgeResultFile.Point(10_000, 0, 0, 120.5, OptionalLong.of(300L << 20), 0,
            Optional.empty(), Optional.empty());
    private static final BridgeResultFile.Point BUSY = new BridgeResultFile.Point(10_000, 50_000, 49_000, 910, OptionalLong.of(400L << 20), 2,
            Optional.of(3.5), Optional.of(12.25));

    @Test
    void pointsAppendedToOneScenarioReadBackInOrder() throws IOException {
        Path file = BridgeResultFile.append(dir, "fanout-1kb", 1024, 2, OptionalDouble.empty(), IDLE);
        assertThat(BridgeResultFile.append(dir, "fanout-1kb", 1024, 2, OptionalDouble.empty(), BUSY)).isEqualTo(file);

        assertThat(file.getFileName().toString()).isEqualTo("fanout-1kb.bridge.json");
        assertThat(BridgeResultFile.read(file)).isEqualTo(new BridgeResultFile("fanout-1kb", 1024, java.util.List.of(IDLE, BUSY)));
    }

    @Test
    void theFileHasTheFieldsTheSizingDocumentsAndLeavesOutLatencyNobodyMeasured() throws IOException {
        Path file = BridgeResultFile.append(dir, "s", 256, 4, OptionalDouble.of(1.5), IDLE);

        JsonNode root = new ObjectMapper().readTree(file.toFile());
        assertThat(root.get("tool").asText()).isEqualTo("sluice-bench-bridge");
        assertThat(root.get("cores").asInt()).isEqualTo(4);
        assertThat(root.get("cpuLimitCores").asDouble()).isEqualTo(1.5);
        assertThat(root.at("/points/0").fieldNames()).toIterable().containsExactly("connections", "targetMessagesPerSecond",
                "deliveredMessagesPerSecond", "cpuMillicores", "rssBytes", "failedConnections");
        assertThat(new ObjectMapper().readTree(BridgeResultFile.append(dir, "t", 256, 4, OptionalDouble.empty(), BUSY).toFile())
                .at("/points/0").has("deliveryLatencyP99Ms")).isTrue();
    }

    @Test
    void anotherPayloadSizeGoesToAnotherScenario() throws IOException {
        BridgeResultFile.append(dir, "fanout", 1024, 2, OptionalDouble.empty(), IDLE);

        assertThatThrownBy(() -> BridgeResultFile.append(dir, "fanout", 2048, 2, OptionalDouble.empty(), IDLE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another payload size's points");
    }

    @Test
    void aFileOfAnotherToolIsRefusedNamingTheField() throws IOException {
        Path file = Files.writeString(dir.resolve("x.bridge.json"), "{\"tool\": \"omb\", \"scenario\": \"x\", \"messageBytes\": 1, \"points\": []}");

        assertThatThrownBy(() -> BridgeResultFile.read(file)).isInstanceOf(MalformedResultException.class).hasMessageContaining("tool");
    }
}
