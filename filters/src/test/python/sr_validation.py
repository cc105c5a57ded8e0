"""RecordValidation judged by Confluent's own serializers: confluent-kafka's AvroSerializer, ProtobufSerializer and
JSONSerializer (against a Confluent-compatible registry) produce through the proxy, valid records and records the
filter must refuse, each refusal's delivery report as librdkafka gives it; then the topics are read back from the
broker itself with Confluent's deserializers.

    sr_validation.py --proxy HOST:PORT --broker HOST:PORT --registry URL --avro T1 --protobuf T2 --json T3 --other T4

Each produce call below is one batch of one partition (linger.ms is long, flush() ends the batch), so a record's index
in the batch is its index in the Produce request: the index record_errors names. librdkafka reports the records that
record_errors names as INVALID_RECORD and, when it names more than one, their batch-mates as _INVALID_DIFFERENT_RECORD;
so every refused batch below holds a valid record and two that are not. (librdkafka 2.16 also keeps each record's
message for rd_kafka_message_produce_errstr(), but hands back a pointer into a freed answer, the same against a broker's
own record_errors, and confluent-kafka's report carries the code's generic text only: the reasons are checked with
kafka-clients, which the JUnit test sends the same bytes with, returned here in base64.) The result holds every
delivery report (label, error name, error text, offset), the refused batches' bytes, and every record read back from
the broker; the JUnit test asserts.
"""
import argparse
import base64
import json

from confluent_kafka import Consumer, Producer, TopicPartition, libversion
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from sluice_records import quote_class
from sluice_harness import log, main

ORDER = json.dumps({"type": "record", "name": "Order", "namespace": "acme", "fields": [
    {"name": "id", "type": "long"},
    {"name": "card", "type": "string"},
    {"name": "amount", "type": "double"}]})
PAYMENT = json.dumps({"type": "record", "name": "Payment", "namespace": "acme", "fields": [
    {"name": "id", "type": "long"}, {"name": "amount", "type": "double"}]})
EVENT = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
                    "properties": {"id": {"type": "string"}, "n": {"type": "integer", "maximum": 100}},
                    "required": ["id"]})
WAIT = 30


def run():
    parser = argparse.ArgumentParser()
    for name in ("--proxy", "--broker", "--registry", "--avro", "--protobuf", "--json", "--other"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    log("librdkafka", libversion()[0])
    sr = SchemaRegistryClient({"url": args.registry})
    ctx = lambda topic: SerializationContext(topic, MessageField.VALUE)  # noqa: E731

    avro = AvroSerializer(sr, ORDER)
    orders = [avro({"id": i, "card": "4111111111111111", "amount": 10.0 + i}, ctx(args.avro)) for i in range(4)]
    # A Payment registered under the other topic's subject: a registered id, but not one of the orders topic's subject.
    payments = AvroSerializer(sr, PAYMENT)
    wrong_subject = [payments({"id": 9 + i, "amount": 1.0}, ctx(args.other)) for i in range(2)]
    unregistered = b"\x00\x00\x0f\x42\x3f" + orders[0][5:]  # schema id 999999, which nothing registered
    truncated = orders[1][:-3]

    Quote = quote_class()
    proto = ProtobufSerializer(Quote, sr, {"use.deprecated.format": False})
    quotes = [proto(Quote(sym="ACME", size=42 + i), ctx(args.protobuf)) for i in range(2)]
    # Cut inside the sym string: a cut at a field's end would still be a valid, shorter message.
    cut_quote = quotes[1][:-4]
    bare_quote = quotes[0][6:]  # the message without the header: what a serializer without a registry writes

    json_ser = JSONSerializer(EVENT, sr)
    events = [json_ser({"id": "e%d" % i, "n": i}, ctx(args.json)) for i in range(2)]
    # The serializer validates by default; with validate off it writes what the schema forbids, under its registered id.
    violating = JSONSerializer(EVENT, sr, conf={"validate": False})({"id": "e9", "n": 1000}, ctx(args.json))
    not_json = events[0][:5] + b'{"id": "e8", '

    producer = Producer({"bootstrap.servers": args.proxy, "acks": "all", "linger.ms": 1000, "batch.num.messages": 100,
                         "message.timeout.ms": 20000, "retries": 0})
    reports = []

    def send(topic, batch):
        for label, value in batch:
            def report(error, message, label=label):
                reports.append({"label": label, "topic": topic,
                                "error": None if error is None else error.name(),
                                "text": None if error is None else error.str(),
                                "offset": None if error is not None else message.offset()})
            producer.produce(topic, value=value, on_delivery=report)
        left = producer.flush(WAIT)
        log("sent", len(batch), "to", topic, "; undelivered", left)

    refused = [
        (args.avro, [("avro-batch-valid", orders[3]), ("avro-unregistered", unregistered), ("avro-truncated", truncated)]),
        (args.avro, [("avro-wrong-subject", wrong_subject[0]), ("avro-batch-valid-2", orders[3]), ("avro-wrong-subject-2", wrong_subject[1])]),
        (args.protobuf, [("protobuf-batch-valid", quotes[1]), ("protobuf-truncated", cut_quote), ("protobuf-no-header", bare_quote)]),
        (args.json, [("json-violation", violating), ("json-not-json", not_json), ("json-batch-valid", events[1])]),
    ]
    send(args.avro, [("avro-valid-0", orders[0]), ("avro-valid-1", orders[2])])
    send(args.protobuf, [("protobuf-valid", quotes[0])])
    send(args.json, [("json-valid", events[0]), ("json-valid-1", events[1])])
    for topic, batch in refused:
        send(topic, batch)
    for r in reports:
        log("delivery", r)

    # Read back from the broker itself, with Confluent's deserializers: what landed, and nothing else.
    landed = {}
    deserializers = {args.avro: AvroDeserializer(sr), args.protobuf: ProtobufDeserializer(Quote, {"use.deprecated.format": False}),
                     args.json: JSONDeserializer(EVENT)}
    consumer = Consumer({"bootstrap.servers": args.broker, "group.id": "sr-validation", "enable.auto.commit": False,
                         "enable.partition.eof": True})
    for topic, deserializer in deserializers.items():
        consumer.assign([TopicPartition(topic, 0, 0)])
        values = []
        while True:
            message = consumer.poll(WAIT)
            if message is None:
                raise RuntimeError("no end of partition from %s" % topic)
            if message.error():
                break  # the end of the partition
            value = deserializer(message.value(), ctx(topic))
            if topic == args.protobuf:
                value = {"sym": value.sym, "size": value.size}
            values.append(value)
        landed[topic] = values
        log("read from the broker:", topic, values)
    consumer.close()
    batches = [{"topic": topic, "records": [{"label": label, "value": base64.b64encode(value).decode()} for label, value in batch]}
               for topic, batch in refused]
    return {"reports": reports, "refusedBatches": batches, "landed": landed}


main(run)
