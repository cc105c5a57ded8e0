package io.sluice.filter.masking;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;

import io.sluice.auth.Permissions;
import io.sluice.filter.jwt.JwtAuth;
import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.FetchedRecords;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.format.Codec;
import io.sluice.format.DecodeException;
import io.sluice.format.DecodeOutageException;
import io.sluice.format.EncodeException;
import io.sluice.format.SchemaPendingException;
import io.sluice.format.mask.MaskFailure;
import io.sluice.format.mask.MaskViewer;
import io.sluice.format.mask.ValueMask;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.FilterContext;

/**
 * Masks one fetched partition for one connection's reader: every record's value decoded, masked and written back with
 * its own schema and schema id ({@link Codec#rewrite}) by {@link BatchRewriter}, which keeps offsets, timestamps,
 * producer state and the codec. Fails closed: a record that cannot be masked is never passed unmasked. It refuses its
 * partition (CORRUPT_MESSAGE, no records) or is dropped (its offset stays taken), as the rule's {@code onFailure} says;
 * while the schema registry cannot give a schema, the partition goes back without records and without error, so the
 * consumer fetches it again, as RecordEncryption does during a KMS outage.
 */
final class PartitionMasker {

    private final FieldMasking.Shared shared;
    private final FilterContext context;
    private final MaskViewer viewer;

    PartitionMasker(FieldMasking.Shared shared, FilterContext context) {
        this.shared = shared;
        this.context = context;
        this.viewer = viewer(context);
    }

    /** The connection's principal as masks see it: its name and its token's unmask grants (none without JwtAuth). */
    private static MaskViewer viewer(FilterContext context) {
        AuthenticatedPrincipal principal = context.principal().orElse(null);
        if (principal == null) {
            return MaskViewer.NOBODY;
        }
        Permissions permissions = principal.attribute(JwtAuth.PERMISSIONS_ATTRIBUTE, Permissions.class).orElse(Permissions.none());
        return new MaskViewer() {
            @Override
            public String principal() {
                return principal.name();
            }

            @Override
            public boolean unmasked(String topic, String path) {
                return permissions.unmasked(topic, path);
            }
        };
    }

    /** The masks this reader gets on {@code topic}; null when none (no rule, or it sees every field whole). */
    ValueMask maskFor(String topic) {
        return shared.masks().forViewer(topic, viewer);
    }

    /** Masks the partition in place; returns null when done, or a future to wait for before trying it again. */
    CompletableFuture<Void> mask(String topic, FetchedRecords.Partition partition, MemoryRecords records, ValueMask mask, Codec codec) {
        long[] masked = {0};
        try {
            MemoryRecords out = BatchRewriter.rewrite(records, records.sizeInBytes() + 1024, shared.records().forFetch(), (batch, record) -> {
                BatchRewriter.Rewritten rewritten = maskRecord(topic, partition.index(), record, mask, codec);
                if (rewritten != BatchRewriter.DROP) {
                    masked[0]++;
                }
                return rewritten;
            });
            partition.records(out);
            shared.metrics().masked.increment(masked[0]);
            return null;
        } catch (Pending pending) {
            return pending.ready;
        } catch (Outage outage) {
            shared.metrics().outages.increment();
            shared.metrics().outage(context.channelDescriptor(), topic, partition.index());
            partition.records(MemoryRecords.EMPTY);
            return null;
        } catch (Refused refused) {
            shared.metrics().refused.increment();
            partition.fail(Errors.CORRUPT_MESSAGE);
            return null;
        } catch (UnreadableRecords unreadable) {
            // Counted and logged by the reader. The batches before the unreadable one were masked on the way and go
            // on (over the request's read limit: the rest is fetched again); if it is the first, nothing does.
            unreadable.fetchAnswer().ifPresentOrElse(partition::records, () -> partition.fail(Errors.CORRUPT_MESSAGE));
            shared.metrics().masked.increment(masked[0]);
            return null;
        }
    }

    private BatchRewriter.Rewritten maskRecord(String topic, int partition, Record record, ValueMask mask, Codec codec) {
        if (!record.hasValue()) {
            return null; // a tombstone holds no field
        }
        ByteBuffer value = record.value();
        byte[] bytes = new byte[value.remaining()];
        value.get(bytes);
        try {
            return new BatchRewriter.Rewritten(ByteBuffer.wrap(codec.rewrite(topic, bytes, mask::apply)), record.headers());
        } catch (SchemaPendingException e) {
            throw new Pending(e.ready());
        } catch (DecodeOutageException e) {
            throw new Outage();
        } catch (DecodeException | EncodeException | RuntimeException | StackOverflowError e) {
            // The record's own bad data (or a codec's failure on it): that record alone, as the rule says.
            return unmaskable(topic, partition, record.offset(), e, mask.onFailure());
        }
    }

    private BatchRewriter.Rewritten unmaskable(String topic, int partition, long offset, Throwable why, MaskFailure onFailure) {
        String reason = why.getMessage() == null ? why.getClass().getSimpleName() : why.getMessage();
        boolean drop = onFailure == MaskFailure.DROP;
        shared.metrics().unmaskable(context.channelDescriptor(), topic, partition, offset, reason, drop);
        if (drop) {
            shared.metrics().dropped.increment();
            return BatchRewriter.DROP;
        }
        throw new Refused();
    }

    /** The partition waits for a schema being fetched. */
    private static final class Pending extends RuntimeException {
        final transient CompletableFuture<Void> ready;

        Pending(CompletableFuture<Void> ready) {
            super(null, null, false, false);
            this.ready = ready;
        }
    }

    /** The registry cannot give a schema now. */
    private static final class Outage extends RuntimeException {
        Outage() {
            super(null, null, false, false);
        }
    }

    /** A record that cannot be masked refuses its partition. */
    private static final class Refused extends RuntimeException {
        Refused() {
            super(null, null, false, false);
        }
    }
}
