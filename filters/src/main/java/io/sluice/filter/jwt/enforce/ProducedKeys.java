package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.auth.KeyAccess;
import io.sluice.filter.records.RecordKeys;

/** Whether every record of a produced partition has a key the principal may write. */
final class ProducedKeys {

    private ProducedKeys() {
    }

    static boolean allAllowed(BaseRecords records, KeyAccess write) {
        if (write.all()) {
            return true;
        }
        if (!write.any() || !(records instanceof MemoryRecords memory)) {
            return false;
        }
        return RecordKeys.firstRefused(memory, write::allows).isEmpty();
    }
}
