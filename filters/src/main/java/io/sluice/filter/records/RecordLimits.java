package io.sluice.filter.records;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How much a filter may read of the records in one request or response, whatever their batch headers claim.
 * One definition for every filter that reads records (JwtAuth, KeyRouting, RecordEncryption): each binds it from
 * its optional {@code records} field, so they share the defaults and the meaning. See docs/configuration.md.
 *
 * @param maxRecordBytes  the largest record, decompressed, a filter reads (a record claiming more is refused
 *                        before anything is allocated for it)
 * @param maxBatchBytes   decompressed bytes of one batch, at most
 * @param maxRequestBytes decompressed bytes of all the batches of one request or response, at most
 */
public record RecordLimits(int maxRecordBytes, int maxBatchBytes, long maxRequestBytes) {

    public static final int DEFAULT_MAX_RECORD_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_MAX_BATCH_BYTES = 32 * 1024 * 1024;
    public static final long DEFAULT_MAX_REQUEST_BYTES = 128L * 1024 * 1024;

    public static final RecordLimits DEFAULTS = new RecordLimits(DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_BATCH_BYTES, DEFAULT_MAX_REQUEST_BYTES);

    public RecordLimits {
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("maxRecordBytes: must be at least 1, not " + maxRecordBytes);
        }
        if (maxBatchBytes < maxRecordBytes) {
            throw new IllegalArgumentException("maxBatchBytes: must be at least maxRecordBytes (" + maxRecordBytes + "), not " + maxBatchBytes);
        }
        if (maxRequestBytes < maxBatchBytes) {
            // Else the first batch of a response could never be read, and a consumer could never move on.
            throw new IllegalArgumentException("maxRequestBytes: must be at least maxBatchBytes (" + maxBatchBytes + "), not " + maxRequestBytes);
        }
    }

    /** The defaults where {@code limits} is absent from a filter's configuration. */
    public static RecordLimits orDefaults(RecordLimits limits) {
        return limits == null ? DEFAULTS : limits;
    }

    @JsonCreator
    static RecordLimits fromYaml(@JsonProperty("maxRecordBytes") Integer maxRecordBytes,
                                 @JsonProperty("maxBatchBytes") Integer maxBatchBytes,
                                 @JsonProperty("maxRequestBytes") Long maxRequestBytes) {
        return new RecordLimits(maxRecordBytes == null ? DEFAULT_MAX_RECORD_BYTES : maxRecordBytes,
                maxBatchBytes == null ? DEFAULT_MAX_BATCH_BYTES : maxBatchBytes,
                maxRequestBytes == null ? DEFAULT_MAX_REQUEST_BYTES : maxRequestBytes);
    }
}
