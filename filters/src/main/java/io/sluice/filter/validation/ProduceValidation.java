package io.sluice.filter.validation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;

import io.sluice.filter.records.ProduceRefusal;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.RefusedPartitions;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * The check of one Produce request, on its connection's event loop. The records of the partitions a rule names are read
 * once (within the filter's record limits) and each key and value is checked ({@link PartCheck}); checks that wait for
 * the registry are asked again when their lookups complete, until every verdict is in or the lookup timeout passes.
 * Then a partition holding a refused record is answered INVALID_RECORD naming each such record and its reason, one the
 * registry could not check meets its rule's {@code onRegistryOutage}, and the rest goes on to the broker.
 */
final class ProduceValidation {

    /** One record's parts, copied out of the request (codecs read arrays); null for a null key or value. */
    private record Part(byte[] key, byte[] value) {
    }

    /** A partition of a rule's topic, its records, and their verdicts so far (null: not checked yet, or pending). */
    private static final class Checked {
        final ProduceRequestData.TopicProduceData topic;
        final ProduceRequestData.PartitionProduceData partition;
        final String name;
        final ValidationRules.Rule rule;
        final List<Part> records;
        final Verdict[] keys;
        final Verdict[] values;

        Checked(ProduceRequestData.TopicProduceData topic, ProduceRequestData.PartitionProduceData partition, String name,
                ValidationRules.Rule rule, List<Part> records) {
            this.topic = topic;
            this.partition = partition;
            this.name = name;
            this.rule = rule;
            this.records = records;
            this.keys = new Verdict[records.size()];
            this.values = new Verdict[records.size()];
        }
    }

    private final RecordValidation.Shared shared;
    private final RequestHeaderData header;
    private final ProduceRequestData produce;
    private final FilterContext context;
    private final List<Checked> checked = new ArrayList<>();
    private final RefusedPartitions refused = new RefusedPartitions();
    /** Set when the lookup timeout has passed: what is still pending then is answered as unchecked. */
    private boolean expired;
    private ScheduledFuture<?> timer;
    private CompletableFuture<Void> deadlineReached;

    ProduceValidation(RecordValidation.Shared shared, RequestHeaderData header, ProduceRequestData produce, FilterContext context) {
        this.shared = shared;
        this.header = header;
        this.produce = produce;
        this.context = context;
    }

    /** @param names the names of the topics the request gives by id only */
    CompletionStage<RequestFilterResult> run(Map<Uuid, String> names) {
        RecordReader reader = shared.records().forProduce();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            String name = topic.name() != null && !topic.name().isEmpty() ? topic.name() : names.get(topic.topicId());
            if (name == null) {
                // Whether a rule applies cannot be told: its records are not passed on unchecked.
                for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                    refused.refuse(topic, partition, Errors.UNKNOWN_TOPIC_ID, "topic id " + topic.topicId() + " is not known");
                }
                continue;
            }
            ValidationRules.Rule rule = shared.rules().forTopic(name);
            if (rule == null) {
                continue;
            }
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                try {
                    checked.add(new Checked(topic, partition, name, rule, read((MemoryRecords) partition.records(), reader, rule)));
                }
                catch (UnreadableRecords e) {
                    // Counted and logged (rate-limited) by the reader; records not read are never passed on as valid.
                    refused.refuse(topic, partition, e.error(), e.getMessage());
                }
            }
        }
        if (checked.isEmpty() && refused.isEmpty()) {
            return context.forwardRequest(header, produce);
        }
        return round();
    }

    private static List<Part> read(MemoryRecords records, RecordReader reader, ValidationRules.Rule rule) {
        RecordReader.Batches batches = reader.batches(records);
        if (batches.problem() != null) {
            throw batches.problem();
        }
        List<Part> parts = new ArrayList<>();
        for (MutableRecordBatch batch : batches.complete()) {
            reader.forEach(batch, record -> parts.add(new Part(rule.key() == null ? null : bytes(record.key()),
                    rule.value() == null ? null : bytes(record.value()))));
        }
        return parts;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Checks what has no verdict yet; waits for the lookups the pending ones started, or answers. */
    private CompletionStage<RequestFilterResult> round() {
        Set<CompletableFuture<Void>> waits = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Checked c : checked) {
            for (int i = 0; i < c.records.size(); i++) {
                Part part = c.records.get(i);
                if (c.rule.key() != null) {
                    c.keys[i] = settle(c.keys[i], c.rule.key(), c.name, part.key(), waits);
                }
                if (c.rule.value() != null) {
                    c.values[i] = settle(c.values[i], c.rule.value(), c.name, part.value(), waits);
                }
            }
        }
        if (waits.isEmpty() || expired) {
            if (timer != null) {
                timer.cancel(false);
            }
            return CompletableFuture.completedFuture(answer());
        }
        if (timer == null) {
            CompletableFuture<Void> deadline = new CompletableFuture<>();
            timer = context.eventLoop().schedule(() -> {
                expired = true;
                deadline.complete(null);
            }, shared.lookupTimeout().toNanos(), TimeUnit.NANOSECONDS);
            deadlineReached = deadline;
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
        return CompletableFuture.anyOf(all, deadlineReached).thenComposeAsync(done -> round(), context.eventLoop());
    }

    /** A verdict in stays; a pending one (or none yet) is asked for, and its lookup joins the waits. */
    private static Verdict settle(Verdict before, PartCheck check, String topic, byte[] bytes, Set<CompletableFuture<Void>> waits) {
        if (before != null && !(before instanceof Verdict.Pending)) {
            return before;
        }
        Verdict now = check.check(topic, bytes);
        if (now instanceof Verdict.Pending pending) {
            waits.add(pending.ready());
        }
        return now;
    }

    private RequestFilterResult answer() {
        ValidationMetrics metrics = shared.metrics();
        for (Checked c : checked) {
            List<ProduceRefusal.RecordError> errors = new ArrayList<>();
            int refusedRecords = 0;
            boolean outage = false;
            Verdict.Refused first = null;
            for (int i = 0; i < c.records.size(); i++) {
                Verdict.Refused why = firstRefusal(c.keys[i], c.values[i]);
                if (why != null) {
                    refusedRecords++;
                    metrics.reason(why.reason());
                    if (first == null) {
                        first = why;
                    }
                    if (errors.size() < shared.maxRecordErrors()) {
                        errors.add(new ProduceRefusal.RecordError(i, why.message()));
                    }
                }
                else if (unchecked(c.keys[i]) || unchecked(c.values[i])) {
                    outage = true;
                }
            }
            int records = c.records.size();
            if (refusedRecords > 0) {
                metrics.refused.increment(refusedRecords);
                metrics.valid.increment(records - refusedRecords);
                metrics.refusedPartition(context.channelDescriptor(), c.name, c.partition.index(), refusedRecords, records, first.reason());
                String message = refusedRecords + " of " + records + " records do not conform (RecordValidation); record "
                        + errors.get(0).index() + ": " + first.message();
                refused.refuse(c.topic, c.partition, Errors.INVALID_RECORD, message, errors);
            }
            else if (outage && c.rule.onOutage() == ValidationRules.OnOutage.REFUSE) {
                metrics.outageRefusals.increment();
                metrics.outage(context.channelDescriptor(), c.name, c.partition.index(), false);
                refused.refuse(c.topic, c.partition, Errors.REQUEST_TIMED_OUT,
                        "the schema registry cannot answer the checks of these records now; nothing was written (RecordValidation)");
            }
            else if (outage) {
                metrics.outage(context.channelDescriptor(), c.name, c.partition.index(), true);
                metrics.unchecked.increment(records);
            }
            else {
                metrics.valid.increment(records);
            }
        }
        if (refused.isEmpty()) {
            return context.requestFilterResultBuilder().forward(header, produce).build();
        }
        return refused.result(header, produce, context);
    }

    private static Verdict.Refused firstRefusal(Verdict key, Verdict value) {
        if (key instanceof Verdict.Refused r) {
            return r;
        }
        return value instanceof Verdict.Refused r ? r : null;
    }

    /** An outage, or a lookup still pending at the timeout: the record was not checked. */
    private static boolean unchecked(Verdict verdict) {
        return verdict instanceof Verdict.Outage || verdict instanceof Verdict.Pending;
    }
}
