package io.sluice.filter.masking;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.format.CodecConfig;
import io.sluice.format.DecodeFailurePolicy;
import io.sluice.format.FormatRule;
import io.sluice.format.mask.FieldMaskConfig;
import io.sluice.format.mask.MaskKind;
import io.sluice.format.mask.MaskRule;
import io.sluice.format.mask.MaskingConfig;
import io.sluice.proxy.filter.harness.FilterHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * FieldMasking refuses at load a mask the field's type cannot carry, naming the field (an Avro int under keepLast), for
 * a topic the rule names literally; the same rule over a pattern of topics is left to their records.
 */
class FieldMaskingConfigTest {

    private static FieldMasking.Config config(Path schema, String topics) {
        return new FieldMasking.Config(null, List.of(new FormatRule("orders", null, new CodecConfig("avro", false, schema.toString(), null, false),
                DecodeFailurePolicy.RAW)), new MaskingConfig(null, List.of(new MaskRule(topics, List.of(
                        new FieldMaskConfig("/card", MaskKind.KEEP_LAST, null, 4), new FieldMaskConfig("/amount", MaskKind.KEEP_LAST, null, 4)),
                null, null))), null, null);
    }

    @Test
    void aMaskTheFieldCannotCarryIsRefusedAtLoadNamingTheField(@TempDir Path dir) throws Exception {
        Path schema = Files.writeString(dir.resolve("order.avsc"), """
                {"type": "record", "name": "Order", "fields": [{"name": "card", "type": "string"}, {"name": "amount", "type": "int"}]}""");

        assertThatThrownBy(() -> FilterHarness.of(new FieldMasking(), config(schema, "orders")))
                .hasStackTraceContaining("masking.rules[0].fields[1] (/amount, topic orders): keepLast does not fit the schema: "
                        + "/amount: keepLast needs a string, the value is a number");
        try (FilterHarness harness = FilterHarness.of(new FieldMasking(), config(schema, "orders.*"))) {
            assertThat(harness).as("a pattern of topics: checked by the records").isNotNull();
        }
    }
}
