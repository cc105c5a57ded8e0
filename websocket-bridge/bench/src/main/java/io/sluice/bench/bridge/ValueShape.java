package io.sluice.bench.bridge;

/**
 * What the bench's records carry. {@code raw}: the stamp and filler text of {@code --payload} bytes (the fan-out
 * scenarios). {@code json} and {@code avro}: the JSON document of Lightstreamer's scenario 3 ({@link StructuredValues}),
 * as JSON text or as bare Avro binary that the bridge decodes with a local schema.
 */
public enum ValueShape {
    RAW, JSON, AVRO;

    boolean structured() {
        return this != RAW;
    }
}
