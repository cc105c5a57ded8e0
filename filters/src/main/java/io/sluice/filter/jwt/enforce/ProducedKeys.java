package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

import io.sluice.auth.KeyAccess;

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
        for (RecordBatch batch : memory.batches()) {
            for (Record record : batch) {
                if (!write.allows(record.key())) {
                    return false;
                }
            }
        }
        return true;
    }
}
