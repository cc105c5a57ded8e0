"""FieldMasking judged by Confluent's own deserializers: records written with confluent-kafka's AvroSerializer,
ProtobufSerializer and JSONSerializer (and plain JSON) through the proxy, then read back through the proxy by two
tokens with AvroDeserializer, ProtobufDeserializer and JSONDeserializer (which validates what it reads against the
writer's schema), each reader's view returned for the JUnit test to assert.

    sr_masking.py --proxy HOST:PORT --registry URL --avro T1 --protobuf T2 --json-schema T3 --json T4

The tokens come from the environment: SLUICE_WRITER_TOKEN (writes every topic), SLUICE_SUPPORT_TOKEN and
SLUICE_PAYMENTS_TOKEN (read them); the oauth_cb hands librdkafka the one a client is made for.
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
from sluice_harness import env, log, main

ORDER = json.dumps({"type": "record", "name": "Order", "namespace": "acme", "fields": [
    {"name": "id", "type": "long"},
    {"name": "card", "type": "string"},
    {"name": "email", "type": "string"}]})
EVENT = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
                    "properties": {"id": {"type": "string"}, "n": {"type": "integer", "maximum": 100}},
                    "required": ["id"]})
WAIT = 30


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def authenticated(conf, token):
    def oauth_cb(_config):
        c = claims(token)
        return token, float(c["exp"]), c["sub"], {}
    conf.update({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER", "oauth_cb": oauth_cb})
    return conf


def run():
    parser = argparse.ArgumentParser()
    for name in ("--proxy", "--registry", "--avro", "--protobuf", "--json-schema", "--json"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    log("librdkafka", libversion()[0])
    sr = SchemaRegistryClient({"url": args.registry})
    ctx = lambda topic: SerializationContext(topic, MessageField.VALUE)  # noqa: E731
    Quote = quote_class()

    values = {
        args.avro: [AvroSerializer(sr, ORDER)({"id": i, "card": "4111111111111111", "email": "ada@example.com"}, ctx(args.avro))
                    for i in range(2)],
        args.protobuf: [ProtobufSerializer(Quote, sr, {"use.deprecated.format": False})(Quote(sym="ACME-%d" % i, size=42), ctx(args.protobuf))
                        for i in range(2)],
        args.json_schema: [JSONSerializer(EVENT, sr)({"id": "event-%d" % i, "n": i}, ctx(args.json_schema)) for i in range(2)],
        args.json: [json.dumps({"card": "5500000000000004", "n": i}).encode() for i in range(2)],
    }
    producer = Producer(authenticated({"bootstrap.servers": args.proxy, "acks": "all", "message.timeout.ms": 20000}, env("SLUICE_WRITER_TOKEN")))
    failures = []
    for topic, batch in values.items():
        for value in batch:
            producer.produce(topic, value=value, on_delivery=lambda e, m: failures.append(e.str()) if e else None)
    left = producer.flush(WAIT)
    if left or failures:
        raise RuntimeError("produce failed: %s undelivered, errors %s" % (left, failures))

    deserializers = {args.avro: AvroDeserializer(sr),
                     args.protobuf: ProtobufDeserializer(Quote, {"use.deprecated.format": False}),
                     args.json_schema: JSONDeserializer(EVENT),
                     args.json: lambda value, _ctx: json.loads(value)}
    views = {}
    for reader in ("SUPPORT", "PAYMENTS"):
        consumer = Consumer(authenticated({"bootstrap.servers": args.proxy, "group.id": "sr-masking-" + reader, "enable.auto.commit": False,
                                           "enable.partition.eof": True}, env("SLUICE_%s_TOKEN" % reader)))
        views[reader.lower()] = {}
        for topic, deserialize in deserializers.items():
            consumer.assign([TopicPartition(topic, 0, 0)])
            read = []
            while True:
                message = consumer.poll(WAIT)
                if message is None:
                    raise RuntimeError("no end of partition from %s" % topic)
                if message.error():
                    if message.error().code() == -191:  # _PARTITION_EOF
                        break
                    raise RuntimeError("%s: %s" % (topic, message.error().str()))
                value = deserialize(message.value(), ctx(topic))
                if topic == args.protobuf:
                    value = {"sym": value.sym, "size": value.size}
                read.append(value)
            views[reader.lower()][topic] = read
            log(reader, "read", topic, read)
        consumer.close()
    return views


main(run)
