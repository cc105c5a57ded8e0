package io.sluice.filter.validation;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sluice.format.AvroBinary;
import io.sluice.format.registry.RegistryConfig;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.format.registry.SchemaType;
import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * RecordValidation in the FilterHarness against the registry stand-in (the real Confluent REST API over HTTP): each rule
 * and each way a record fails it, what the producer's answer then says (INVALID_RECORD with record_errors naming the
 * record and the reason), what goes on to the broker, and what the registry's absence does.
 */
class RecordValidationTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    static final String ORDER = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"acme\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"card\",\"type\":\"string\"},{\"name\":\"amount\",\"type\":\"double\"}]}";
    static final String ORDER_V2 = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"acme\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"card\",\"type\":\"string\"},{\"name\":\"amount\",\"type\":\"double\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    static final String QUOTE = "syntax = \"proto3\";\npackage acme;\nmessage Quote { string sym = 1; int64 size = 2; }\n";
    static final String EVENT = "{\"title\":\"acme.Event\",\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
            + "\"n\":{\"type\":\"integer\",\"maximum\":100}},\"required\":[\"id\"]}";

    private RegistryStandIn registry;
    private FilterHarness harness;

    @BeforeEach
    void start() throws Exception {
        registry = RegistryStandIn.start();
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
        registry.close();
    }

    // ---- building configs, records and requests ----

    static RecordValidation.PartConfig part(String format) {
        return new RecordValidation.PartConfig(format, null, null, null, null);
    }

    static RecordValidation.RuleConfig rule(String topic, RecordValidation.PartConfig key, RecordValidation.PartConfig value) {
        return new RecordValidation.RuleConfig(List.of(topic), key, value, null);
    }

    private FilterHarness harness(RecordValidation.RuleConfig... rules) {
        return harness(null, rules);
    }

    private FilterHarness harness(Duration lookupTimeout, RecordValidation.RuleConfig... rules) {
        harness = FilterHarness.of(new RecordValidation(), new RecordValidation.Config(RegistryConfig.of(registry.url()), List.of(rules),
                null, null, lookupTimeout));
        return harness;
    }

    static byte[] order(int schemaId, long id) {
        Schema schema = new Schema.Parser().parse(ORDER);
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", id);
        order.put("card", "4111111111111111");
        order.put("amount", 12.5);
        return AvroBinary.confluent(schemaId, schema, order);
    }

    /** A Quote in the Confluent wire format: header, message-index path [0] (one byte 0), then the message. */
    static byte[] quote(int schemaId, String sym) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
        out.write(0);
        byte[] text = sym.getBytes(StandardCharsets.UTF_8);
        out.write(0x0a);
        out.write(text.length);
        out.writeBytes(text);
        return out.toByteArray();
    }

    static byte[] framed(int schemaId, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(schemaId).put(body).array();
    }

    static SimpleRecord value(byte[] value) {
        return new SimpleRecord(null, value);
    }

    static ProduceRequestData.TopicProduceData topic(String name, int partition, SimpleRecord... records) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(name);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
        return topic;
    }

    static ProduceRequestData produce(short acks, ProduceRequestData.TopicProduceData... topics) {
        ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        for (ProduceRequestData.TopicProduceData t : topics) {
            request.topicData().add(t);
        }
        return request;
    }

    private RequestOutcome send(ProduceRequestData request) throws Exception {
        return harness.await(harness.request(request), WAIT);
    }

    private static ProduceResponseData.PartitionProduceResponse answerOf(ProduceResponseData response, String topic, int partition) {
        return response.responses().stream().filter(t -> t.name().equals(topic)).findFirst().orElseThrow()
                .partitionResponses().stream().filter(p -> p.index() == partition).findFirst().orElseThrow();
    }

    /** The client's answer: the filter's own, or the broker's (all partitions written) completed by the filter's hook. */
    private ProduceResponseData answer(RequestOutcome outcome) {
        if (outcome.verdict() == Verdict.ANSWERED) {
            return (ProduceResponseData) outcome.answer();
        }
        ProduceRequestData forwarded = (ProduceRequestData) outcome.forwarded();
        ProduceResponseData broker = new ProduceResponseData();
        for (ProduceRequestData.TopicProduceData t : forwarded.topicData()) {
            ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse().setName(t.name());
            t.partitionData().forEach(p -> topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())));
            broker.responses().add(topic);
        }
        return (ProduceResponseData) harness.response(outcome, broker).forwarded();
    }

    private static List<String> forwardedTopics(RequestOutcome outcome) {
        return ((ProduceRequestData) outcome.forwarded()).topicData().stream().map(t -> t.name() + "-" + t.partitionData().get(0).index()).toList();
    }

    private double counter(String name, String tag, String value) {
        return harness.meterRegistry().get(name).tag("filter", FilterHarness.DEFAULT_FILTER_NAME).tag(tag, value).counter().count();
    }

    // ---- the rules and their failures ----

    @Test
    void avroRecordsOfARegisteredIdPassAndAPartitionWithAnUnknownIdOrATruncatedRecordIsRefusedNamingEach() throws Exception {
        int id = registry.register("orders-value", ORDER);
        harness(rule("orders", null, part("avro")));
        byte[] good = order(id, 1);
        byte[] truncated = Arrays.copyOf(good, good.length - 3);

        RequestOutcome first = send(produce((short) -1, topic("orders", 0, value(good), value(order(id, 2))),
                topic("orders", 1, value(good), value(order(9999, 3)), value(truncated)), topic("audit", 0, value("not avro".getBytes()))));

        assertThat(first.verdict()).isEqualTo(Verdict.FORWARDED);
        assertThat(forwardedTopics(first)).as("orders-1 never reaches the broker; a topic no rule names passes")
                .containsExactly("orders-0", "audit-0");
        ProduceResponseData.PartitionProduceResponse refused = answerOf(answer(first), "orders", 1);
        assertThat(refused.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(refused.recordErrors()).extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex).containsExactly(1, 2);
        assertThat(refused.recordErrors().get(0).batchIndexErrorMessage()).isEqualTo("value unknown schema id 9999");
        assertThat(refused.recordErrors().get(1).batchIndexErrorMessage()).startsWith("value bytes do not match the Avro schema: ");
        assertThat(refused.errorMessage()).isEqualTo("2 of 3 records do not conform (RecordValidation); record 1: value unknown schema id 9999");
        assertThat(answerOf(answer(first), "orders", 0).errorCode()).isZero();
        assertThat(counter("sluice.validation.records", "outcome", "valid")).isEqualTo(3);
        assertThat(counter("sluice.validation.records", "outcome", "refused")).isEqualTo(2);
        assertThat(counter("sluice.validation.refusals", "reason", "unknown_schema")).isEqualTo(1);
        assertThat(counter("sluice.validation.refusals", "reason", "payload")).isEqualTo(1);

        int requests = registry.requests();
        RequestOutcome again = harness.request(produce((short) -1, topic("orders", 0, value(good))));
        assertThat(again.verdict()).as("everything cached: answered on the event loop at once").isEqualTo(Verdict.FORWARDED);
        assertThat(registry.requests()).isEqualTo(requests);
    }

    @Test
    void anIdOfAnotherSubjectIsRefusedAndTheLatestRuleRefusesAnOlderVersion() throws Exception {
        int other = registry.register("payments-value", ORDER);
        harness(rule("orders", null, part("avro")), new RecordValidation.RuleConfig(List.of("orders.latest"), null,
                new RecordValidation.PartConfig("avro", null, "latest", null, null), null));
        RequestOutcome wrongSubject = send(produce((short) -1, topic("orders", 0, value(order(other, 1)))));
        assertThat(answerOf(answer(wrongSubject), "orders", 0).recordErrors().get(0).batchIndexErrorMessage())
                .isEqualTo("value schema id " + other + " is not registered under subject orders-value");

        int v1 = registry.register("orders.latest-value", ORDER);
        int v2 = registry.register("orders.latest-value", ORDER_V2);
        RequestOutcome old = send(produce((short) -1, topic("orders.latest", 0, value(order(v1, 1)))));
        assertThat(answerOf(answer(old), "orders.latest", 0).recordErrors().get(0).batchIndexErrorMessage())
                .isEqualTo("value schema id " + v1 + " is not the latest version of subject orders.latest-value (schema id " + v2 + " is)");
        assertThat(counter("sluice.validation.refusals", "reason", "subject")).isEqualTo(2);
    }

    @Test
    void recordAndTopicRecordStrategiesNameTheSubjectAfterTheRecord() throws Exception {
        int byRecord = registry.register("acme.Order", ORDER);
        int byTopicRecord = registry.register("orders2-acme.Order", ORDER_V2);
        harness(rule("orders", null, new RecordValidation.PartConfig("avro", "record", null, false, null)),
                rule("orders2", null, new RecordValidation.PartConfig("avro", "topic-record", null, false, null)));
        assertThat(send(produce((short) -1, topic("orders", 0, value(order(byRecord, 1))))).verdict()).isEqualTo(Verdict.FORWARDED);
        RequestOutcome wrong = send(produce((short) -1, topic("orders2", 0, value(order(byRecord, 1)))));
        assertThat(answerOf(answer(wrong), "orders2", 0).recordErrors().get(0).batchIndexErrorMessage())
                .isEqualTo("value schema id " + byRecord + " is not registered under subject orders2-acme.Order");
        assertThat(send(produce((short) -1, topic("orders2", 0, value(order(byTopicRecord, 1))))).verdict()).isEqualTo(Verdict.FORWARDED);
    }

    @Test
    void protobufAndJsonSchemaAreCheckedInTheirOwnLanguageAndAViolationNamesItsPlace() throws Exception {
        int quote = registry.register("quotes-value", SchemaType.PROTOBUF, QUOTE, List.of());
        int event = registry.register("events-value", SchemaType.JSON, EVENT, List.of());
        int avroUnderQuotes = registry.register("quotes-value", ORDER);
        harness(rule("quotes", null, part("protobuf")), rule("events", null, part("json-schema")),
                rule("events.cheap", null, new RecordValidation.PartConfig("json-schema", "record", null, false, null)));
        registry.register("acme.Event", SchemaType.JSON, EVENT, List.of());

        RequestOutcome quotes = send(produce((short) -1, topic("quotes", 0, value(quote(quote, "ACME")), value(order(avroUnderQuotes, 1)))));
        assertThat(answerOf(answer(quotes), "quotes", 0).recordErrors()).extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex,
                ProduceResponseData.BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(tuple(1, "value schema id " + avroUnderQuotes + " is unusable: a AVRO schema, not Protobuf"));

        RequestOutcome events = send(produce((short) -1, topic("events", 0, value(framed(event, "{\"id\":\"e1\",\"n\":7}")),
                value(framed(event, "{\"id\":\"e2\",\"n\":101}")), value(framed(event, "{\"n\":1")))));
        List<ProduceResponseData.BatchIndexAndErrorMessage> errors = answerOf(answer(events), "events", 0).recordErrors();
        assertThat(errors).extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex).containsExactly(1, 2);
        assertThat(errors.get(0).batchIndexErrorMessage()).startsWith("value does not conform to JSON Schema id " + event + ": /n: ")
                .contains("100");
        assertThat(errors.get(1).batchIndexErrorMessage()).isEqualTo("value not exactly one JSON value");

        RequestOutcome cheap = send(produce((short) -1, topic("events.cheap", 0, value(framed(event, "{\"id\":\"e2\",\"n\":101}")))));
        assertThat(cheap.verdict()).as("decode: false checks the header, the id and the subject only").isEqualTo(Verdict.FORWARDED);
        assertThat(((ProduceRequestData) cheap.forwarded()).topicData()).hasSize(1);
        assertThat(counter("sluice.validation.refusals", "reason", "wrong_schema")).isEqualTo(1);
    }

    @Test
    void keysAndValuesAreCheckedSeparatelyPlainJsonNeedsNoHeaderAndAnyTakesEveryLanguage() throws Exception {
        int order = registry.register("mixed-value", ORDER);
        int event = registry.register("mixed-value", SchemaType.JSON, EVENT, List.of());
        harness(rule("mixed", new RecordValidation.PartConfig("json", null, null, null, "refuse"), part("any")));
        RequestOutcome outcome = send(produce((short) -1, topic("mixed", 0,
                new SimpleRecord("{\"k\":1}".getBytes(), order(order, 1)),
                new SimpleRecord("{\"k\":2}".getBytes(), framed(event, "{\"id\":\"x\"}")),
                new SimpleRecord("k3".getBytes(), order(order, 3)),
                new SimpleRecord(null, order(order, 4)),
                new SimpleRecord("{}".getBytes(), "{\"no\":\"header\"}".getBytes()),
                new SimpleRecord("{}".getBytes(), (byte[]) null))));
        assertThat(answerOf(answer(outcome), "mixed", 0).recordErrors()).extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex,
                ProduceResponseData.BatchIndexAndErrorMessage::batchIndexErrorMessage).containsExactly(
                tuple(2, "key not exactly one JSON value"),
                tuple(3, "key is null, and the rule refuses nulls"),
                tuple(4, "value no schema registry header (first byte 123, expected 0)"));
        assertThat(counter("sluice.validation.refusals", "reason", "no_header")).isEqualTo(1);
        assertThat(counter("sluice.validation.refusals", "reason", "null")).isEqualTo(1);
    }

    // ---- the registry's absence, topic ids, acks=0, unreadable records ----

    @Test
    void aRegistryOutageFailsClosedWithARetriableErrorOrOpenWhenTheRuleSaysSo() throws Exception {
        int id = registry.register("orders-value", ORDER);
        harness(rule("orders", null, part("avro")), new RecordValidation.RuleConfig(List.of("clicks"), null, part("avro"), "accept"));
        registry.stop();
        RequestOutcome outcome = send(produce((short) -1, topic("orders", 0, value(order(id, 1))), topic("clicks", 0, value(order(id, 1)))));
        assertThat(forwardedTopics(outcome)).as("fail open: clicks goes on unchecked").containsExactly("clicks-0");
        ProduceResponseData.PartitionProduceResponse closed = answerOf(answer(outcome), "orders", 0);
        assertThat(closed.errorCode()).as("retriable: producers try again").isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(closed.errorMessage()).contains("schema registry cannot answer");
        assertThat(closed.recordErrors()).isEmpty();
        assertThat(counter("sluice.validation.records", "outcome", "unchecked")).isEqualTo(1);
        assertThat(harness.meterRegistry().get("sluice.validation.outage.partitions").counter().count()).isEqualTo(1);

        registry.restart();
        // The unreachable period (cache.failureTtl) passes before the registry is asked again; until then, still closed.
        assertThat(answerOf(answer(send(produce((short) -1, topic("orders", 0, value(order(id, 1)))))), "orders", 0).errorCode())
                .isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    }

    @Test
    void lookupsThatOutlastTheLookupTimeoutAreAnsweredAsAnOutage() throws Exception {
        int id = registry.register("orders-value", ORDER);
        harness(Duration.ofSeconds(2), rule("orders", null, part("avro")));
        registry.misbehave(new RegistryStandIn.Misbehaviour.Delay(Duration.ofSeconds(4)));
        RequestOutcome outcome = harness.request(produce((short) -1, topic("orders", 0, value(order(id, 1)))));
        assertThat(outcome.verdict()).isEqualTo(Verdict.PENDING);
        harness.advanceTime(Duration.ofSeconds(2));
        assertThat(outcome.verdict()).isEqualTo(Verdict.ANSWERED);
        assertThat(answerOf((ProduceResponseData) outcome.answer(), "orders", 0).errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    }

    @Test
    void topicsNamedByIdAreResolvedFirstAndAnUnknownIdIsRefused() throws Exception {
        int id = registry.register("orders-value", ORDER);
        harness(rule("orders", null, part("avro")));
        Uuid orders = Uuid.randomUuid();
        Uuid unknown = Uuid.randomUuid();
        harness.clusterTopic(orders, "orders");
        ProduceRequestData.TopicProduceData byId = topic("", 0, value(order(9999, 1)));
        byId.setTopicId(orders);
        ProduceRequestData.TopicProduceData stranger = topic("", 0, value(order(id, 1)));
        stranger.setTopicId(unknown);
        ProduceResponseData answer = (ProduceResponseData) send(produce((short) -1, byId, stranger)).answer();
        assertThat(answer.responses()).extracting(ProduceResponseData.TopicProduceResponse::topicId).containsExactlyInAnyOrder(orders, unknown);
        assertThat(byTopicId(answer, orders).partitionResponses().get(0).recordErrors().get(0).batchIndexErrorMessage())
                .isEqualTo("value unknown schema id 9999");
        assertThat(byTopicId(answer, unknown).partitionResponses().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void withAcksZeroTheRestGoesOnWithoutAnAnswerAndUnreadableRecordsAreRefusedAsCorrupt() throws Exception {
        int id = registry.register("orders-value", ORDER);
        harness(rule("orders", null, part("avro")));
        RequestOutcome acks0 = send(produce((short) 0, topic("orders", 0, value(order(id, 1))), topic("orders", 1, value(order(9999, 1)))));
        assertThat(forwardedTopics(acks0)).containsExactly("orders-0");
        assertThat(acks0.responseHook()).isNull();

        ProduceRequestData.TopicProduceData corrupt = topic("orders", 2, value(order(id, 1)));
        ByteBuffer bytes = ((MemoryRecords) corrupt.partitionData().get(0).records()).buffer().duplicate();
        bytes.put(bytes.limit() - 1, (byte) (bytes.get(bytes.limit() - 1) ^ 0x55));
        corrupt.partitionData().get(0).setRecords(MemoryRecords.readableRecords(bytes));
        ProduceResponseData answer = (ProduceResponseData) send(produce((short) -1, corrupt)).answer();
        assertThat(answerOf(answer, "orders", 2).errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
    }

    @Test
    void configErrorsNameTheirFields() {
        RegistryConfig url = RegistryConfig.of("http://127.0.0.1:1");
        assertThatThrownBy(() -> RecordValidation.checked(new RecordValidation.Config(url, List.of(), null, null, null)))
                .hasMessage("rules: at least one rule is required");
        assertThatThrownBy(() -> RecordValidation.checked(new RecordValidation.Config(null, List.of(
                new RecordValidation.RuleConfig(null, null, null, "maybe"),
                rule("orders", new RecordValidation.PartConfig("xml", "topicname", "first", null, "drop"), part("avro")),
                rule("events", null, new RecordValidation.PartConfig("json", "record", null, false, null))), null,
                new RecordValidation.LimitsConfig(0, null, null, null), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rules[0].topics: at least one topic pattern is required")
                .hasMessageContaining("rules[0]: give key, value or both")
                .hasMessageContaining("rules[0].onRegistryOutage: must be refuse or accept, not 'maybe'")
                .hasMessageContaining("rules[1].key.format: must be one of avro, protobuf, json-schema, json, any, not 'xml'")
                .hasMessageContaining("rules[1].key.subjectNameStrategy: must be topic, record or topic-record, not 'topicname'")
                .hasMessageContaining("rules[1].key.schemaVersion: must be any or latest, not 'first'")
                .hasMessageContaining("rules[1].key.nulls: must be accept or refuse, not 'drop'")
                .hasMessageContaining("rules[2].value: json records carry no schema id")
                .hasMessageContaining("rules[2].value.decode: json has nothing to check but its parse")
                .hasMessageContaining("schemaRegistry: required")
                .hasMessageContaining("limits.maxDepth: must be between 1 and 1000, not 0")
                .hasMessageContaining("lookupTimeout: must be positive");
        assertThatThrownBy(() -> RecordValidation.checked(new RecordValidation.Config(RegistryConfig.of("ftp://x"),
                List.of(rule("o", null, part("avro"))), null, null, null))).hasMessageContaining("schemaRegistry.url: must start with http://");
        RecordValidation.checked(new RecordValidation.Config(null, List.of(rule("o", part("json"), part("json"))), null, null, null));
    }

    private static ProduceResponseData.TopicProduceResponse byTopicId(ProduceResponseData response, Uuid id) {
        return response.responses().stream().filter(t -> t.topicId().equals(id)).findFirst().orElseThrow();
    }
}
