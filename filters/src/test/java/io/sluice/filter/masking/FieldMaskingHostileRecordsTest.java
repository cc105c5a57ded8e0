package io.sluice.filter.masking;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

import io.sluice.filter.records.ForgedBatches;
import io.sluice.format.mask.FieldMaskConfig;
import io.sluice.format.mask.MaskFailure;
import io.sluice.format.mask.MaskKind;
import io.sluice.format.mask.MaskRule;
import io.sluice.format.mask.MaskingConfig;
import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * FieldMasking in the FilterHarness with fetched records a broker should never send, or a producer wrote to hurt: each
 * costs its own records alone and nothing passes unmasked. A batch that lies about its records after a good one: the
 * good one goes on masked, the lie does not. A value too deep for the limits, and one that is not JSON, refuse their
 * partition (or are dropped, with onFailure: drop) while the other partition of the response is masked and delivered.
 */
class FieldMaskingHostileRecordsTest {

    private static final String CARD = "4111111111111111";

    private static FilterHarness harness(MaskFailure onFailure) {
        return FilterHarness.of(new FieldMasking(), new FieldMasking.Config(null, null, new MaskingConfig(null, List.of(new MaskRule("t",
                List.of(new FieldMaskConfig("/card", MaskKind.KEEP_LAST, null, 4)), null, onFailure))), null, 8));
    }

    private static MemoryRecords json(long baseOffset, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(("k" + i).getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, records);
    }

    private static FetchResponseData fetched(MemoryRecords... partitions) {
        FetchResponseData response = new FetchResponseData();
        List<FetchResponseData.PartitionData> data = new ArrayList<>();
        for (int i = 0; i < partitions.length; i++) {
            data.add(new FetchResponseData.PartitionData().setPartitionIndex(i).setRecords(partitions[i]));
        }
        response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopic("t").setPartitions(data));
        return response;
    }

    private static List<String> values(FetchResponseData.PartitionData partition) {
        List<String> out = new ArrayList<>();
        for (Record r : ((MemoryRecords) partition.records()).records()) {
            ByteBuffer v = r.value();
            byte[] bytes = new byte[v.remaining()];
            v.get(bytes);
            out.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return out;
    }

    private static FetchResponseData respond(FilterHarness harness, FetchResponseData broker) {
        RequestOutcome request = harness.request(new FetchRequestData());
        return (FetchResponseData) harness.response(request, broker).forwarded();
    }

    @Test
    void aLyingBatchAfterAGoodOneCostsOnlyItself() {
        try (FilterHarness harness = harness(MaskFailure.REFUSE)) {
            MemoryRecords good = json(0, "{\"card\":\"" + CARD + "\"}");
            MemoryRecords lying = ForgedBatches.forge(CompressionType.NONE, 5, ForgedBatches.record(0, "k", "{\"card\":\"" + CARD + "\"}"));
            FetchResponseData response = respond(harness, fetched(ForgedBatches.concat(good, lying)));

            FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
            assertThat(values(partition)).containsExactly("{\"card\":\"************1111\"}");
            assertThat(partition.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void aValueTooDeepOrNotJsonRefusesItsPartitionAloneOrIsDropped() {
        String deep = "{\"card\":\"" + CARD + "\",\"x\":" + "[".repeat(20) + "]".repeat(20) + "}";
        for (MaskFailure onFailure : MaskFailure.values()) {
            try (FilterHarness harness = harness(onFailure)) {
                FetchResponseData response = respond(harness, fetched(json(0, "{\"card\":\"" + CARD + "\"}", deep, "card " + CARD),
                        json(0, "{\"card\":\"" + CARD + "\"}")));

                FetchResponseData.PartitionData bad = response.responses().get(0).partitions().get(0);
                FetchResponseData.PartitionData other = response.responses().get(0).partitions().get(1);
                if (onFailure == MaskFailure.REFUSE) {
                    assertThat(bad.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
                    assertThat(((MemoryRecords) bad.records()).sizeInBytes()).isZero();
                } else {
                    assertThat(values(bad)).as("the two that cannot be masked are dropped").containsExactly("{\"card\":\"************1111\"}");
                    assertThat(bad.errorCode()).isEqualTo(Errors.NONE.code());
                }
                assertThat(values(other)).containsExactly("{\"card\":\"************1111\"}");
            }
        }
    }
}
