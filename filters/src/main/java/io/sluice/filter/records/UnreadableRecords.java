package io.sluice.filter.records;

import java.util.Optional;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;

/**
 * Records a filter could not read within its {@link RecordLimits}, or that are not what their batch header says.
 * Carries the complete batches before the unreadable one, already handled, for a Fetch to pass on
 * ({@link FetchedRecords}).
 */
public final class UnreadableRecords extends RuntimeException {

    /** Why, and the error a client gets for it. */
    public enum Reason {
        /** The batch disagrees with itself: count, sizes, CRC, compression, trailing or missing bytes. */
        CORRUPT(Errors.CORRUPT_MESSAGE),
        /** A record or a batch is larger, decompressed, than the limits allow. */
        TOO_LARGE(Errors.MESSAGE_TOO_LARGE),
        /** The request or response as a whole holds more decompressed bytes than the limit. */
        OVER_REQUEST_LIMIT(Errors.MESSAGE_TOO_LARGE),
        /**
         * Well-formed but not read: message format v0 or v1 (magic &lt; 2; Kafka 4 brokers refuse to take those too),
         * or a control batch sent by a client.
         */
        NOT_ACCEPTED(Errors.INVALID_RECORD);

        private final Errors error;

        Reason(Errors error) {
            this.error = error;
        }

        public Errors error() {
            return error;
        }
    }

    private final Reason reason;
    private final transient MemoryRecords checked;

    UnreadableRecords(Reason reason, String message) {
        this(reason, message, MemoryRecords.EMPTY);
    }

    private UnreadableRecords(Reason reason, String message, MemoryRecords checked) {
        super(message, null, false, false);
        this.reason = reason;
        this.checked = checked;
    }

    public Reason reason() {
        return reason;
    }

    /** The error code for the partition (Produce) or for a Fetch partition without any readable batch. */
    public Errors error() {
        return reason.error();
    }

    /** The complete batches before the unreadable one, handled; empty when it was the first. */
    public MemoryRecords checked() {
        return checked;
    }

    UnreadableRecords withChecked(MemoryRecords before) {
        return new UnreadableRecords(reason, getMessage(), before);
    }

    /**
     * Answers a fetched partition with what could be checked: the complete batches before the unreadable one, so
     * the consumer reads them and fetches again from the unreadable batch; when that is the first batch, nothing but
     * CORRUPT_MESSAGE (the one partition error a consumer reports rather than retries or fails on unexpectedly).
     * Over the request limit, the partition comes back empty without error and is fetched again.
     */
    public void answer(FetchResponseData.PartitionData partition) {
        fetchAnswer().ifPresentOrElse(partition::setRecords,
                () -> partition.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setRecords(MemoryRecords.EMPTY));
    }

    /**
     * The records a fetched partition is answered with instead: the checked batches before the unreadable one (none
     * when only the request limit was reached: the consumer fetches again); empty when the partition must be
     * answered {@code CORRUPT_MESSAGE} with no records.
     */
    public Optional<MemoryRecords> fetchAnswer() {
        return checked.sizeInBytes() > 0 || reason == Reason.OVER_REQUEST_LIMIT ? Optional.of(checked) : Optional.empty();
    }

    /** The same as an exception kafka-clients maps to {@link #error()}, for whole-request error responses. */
    public ApiException toApiException() {
        return switch (reason) {
            case CORRUPT -> new CorruptRecordException(getMessage());
            case TOO_LARGE, OVER_REQUEST_LIMIT -> new RecordTooLargeException(getMessage());
            case NOT_ACCEPTED -> new InvalidRecordException(getMessage());
        };
    }
}
