package io.sluice.bridge.subscription;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.bridge.selection.RecordView;

/** A record as a masked group's filter sees it: the masked value, the record's own key and headers. */
final class MaskedView implements RecordView {

    private final RecordView record;
    private final JsonNode maskedValue;

    MaskedView(RecordView record, JsonNode maskedValue) {
        this.record = record;
        this.maskedValue = maskedValue;
    }

    @Override
    public JsonNode value() {
        return maskedValue;
    }

    @Override
    public JsonNode key() {
        return record.key();
    }

    @Override
    public JsonNode header(String name) {
        return record.header(name);
    }

    @Override
    public JsonNode headers() {
        return record.headers();
    }
}
