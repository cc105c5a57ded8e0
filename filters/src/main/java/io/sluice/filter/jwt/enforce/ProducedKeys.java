package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.auth.KeyAccess;
import io.sluice.filter.records.RecordKeys;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.UnreadableRecords;

/** Whether every record of a produced partition has a key the principal may write. */
final class ProducedKeys {

    private ProducedKeys() {
    }

    /**
     * NONE when every key may be written; TOPIC_AUTHORIZATION_FAILED when one may not; for records that cannot be
     * read within the limits, or are not what their headers say, the error to refuse them with (CORRUPT_MESSAGE,
     * MESSAGE_TOO_LARGE, INVALID_RECORD for old formats): unread records are never passed on as allowed.
     */
    static Errors check(BaseRecords records, RecordReader reader, KeyAccess write) {
        if (write.all()) {
            return Errors.NONE;
        }
        if (!write.any() || !(records instanceof MemoryRecords memory)) {
            return Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        try {
            return RecordKeys.firstRefused(memory, reader, write::allows).isEmpty() ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
        } catch (UnreadableRecords e) {
            return e.error();
        }
    }
}
