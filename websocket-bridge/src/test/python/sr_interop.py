"""Records written by Confluent's own serializers (confluent-kafka's AvroSerializer, ProtobufSerializer, JSONSerializer,
against a Confluent-compatible registry) read through the bridge with Python's `websockets`; and a JSON publish
through the bridge read back with confluent-kafka's AvroDeserializer.

    sr_interop.py --bootstrap KAFKA --registry URL --url ws://HOST:PORT/ws --avro T1 --protobuf T2 --json T3   (TOKEN)

The result holds, per format, what was produced (as the bridge's JSON mapping should show it) and what a client
received, and the publish's read-back; the JUnit test compares them.
"""
import argparse
import asyncio
import json

from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from websockets.asyncio.client import connect

from sluice_records import quote_class
from sluice_harness import env, log, main

AVRO_SCHEMA = json.dumps({"type": "record", "name": "Trade", "namespace": "acme", "fields": [
    {"name": "id", "type": "long"},
    {"name": "sym", "type": "string"},
    {"name": "px", "type": "double"},
    {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "note", "type": ["null", "string"], "default": None}]})
JSON_SCHEMA = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
                          "properties": {"id": {"type": "string"}, "n": {"type": "integer"}, "nested": {"type": "object"}},
                          "required": ["id"]})
WAIT = 30


def produce(args, sr):
    producer = Producer({"bootstrap.servers": args.bootstrap})
    big = 2 ** 60 + 1
    trade = {"id": big, "sym": "ACME", "px": 12.5, "side": "BUY", "tags": ["a", "b"], "note": None}
    Quote = quote_class()
    quote = Quote(sym="ACME", size=42, bid=1.5, venues=["X", "Y"])
    event = {"id": "e1", "n": 7, "nested": {"deep": [1, 2, {"x": None}]}}
    writes = [
        (args.avro, AvroSerializer(sr, AVRO_SCHEMA)(trade, SerializationContext(args.avro, MessageField.VALUE))),
        (args.protobuf, ProtobufSerializer(Quote, sr, {"use.deprecated.format": False})(
            quote, SerializationContext(args.protobuf, MessageField.VALUE))),
        (args.json, JSONSerializer(JSON_SCHEMA, sr)(event, SerializationContext(args.json, MessageField.VALUE))),
    ]
    for topic, value in writes:
        producer.produce(topic, key=b"k1", value=value)
    producer.flush(WAIT)
    log("produced 3 records with Confluent's serializers")
    # What the bridge's mapping should show: Avro longs beyond 2^53 as strings, proto3 JSON (int64 as strings).
    return {
        "avro": dict(trade, id=str(big)),
        "protobuf": {"sym": "ACME", "size": "42", "bid": 1.5, "venues": ["X", "Y"]},
        "json": event,
    }


async def receive_and_publish(args, token):
    received = {}
    async with connect(args.url, max_size=2 ** 20) as ws:
        await ws.send(json.dumps({"type": "connect", "id": 1, "token": token}))
        assert json.loads(await asyncio.wait_for(ws.recv(), WAIT))["type"] == "connected"
        endpoints = {"/%s/*" % args.avro: "avro", "/%s/*" % args.protobuf: "protobuf", "/%s/*" % args.json: "json"}
        for i, endpoint in enumerate(endpoints):
            await ws.send(json.dumps({"type": "subscribe", "id": 10 + i, "endpoint": endpoint}))
            reply = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            assert reply["type"] == "subscribed", reply
        expected = produce(args, SchemaRegistryClient({"url": args.registry}))
        while len(received) < 3:
            m = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            if m["type"] != "message":
                log("unexpected: %s" % m)
                continue
            topic = m["endpoint"].split("/")[1]
            name = {args.avro: "avro", args.protobuf: "protobuf", args.json: "json"}[topic]
            received[name] = {"format": m["format"], "payload": m["payload"]}
            log("received %s: %s" % (name, json.dumps(m["payload"])))
        published = {"id": "9007199254740993", "sym": "PUB", "px": 2.25, "side": "SELL", "tags": [], "note": "hi"}
        await ws.send(json.dumps({"type": "publish", "id": 50, "endpoint": "/%s/k2" % args.avro, "payload": published}))
        while True:
            ack = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            if ack.get("id") == 50:
                break
        assert ack["type"] == "ack", ack
    return expected, received, published, ack["seq"]


def read_back(args, offset):
    sr = SchemaRegistryClient({"url": args.registry})
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "sr-interop", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False})
    consumer.subscribe([args.avro])
    deserializer = AvroDeserializer(sr)
    try:
        for _ in range(WAIT * 2):
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            if msg.offset() == offset:
                return deserializer(msg.value(), SerializationContext(args.avro, MessageField.VALUE))
    finally:
        consumer.close()
    return None


def run():
    parser = argparse.ArgumentParser()
    for name in ("--bootstrap", "--registry", "--url", "--avro", "--protobuf", "--json"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    expected, received, published, offset = asyncio.run(receive_and_publish(args, env("TOKEN")))
    back = read_back(args, offset)
    log("read back with AvroDeserializer: %s" % back)
    if back is not None:
        back = dict(back, id=str(back["id"]))
    return {"expected": expected, "received": received, "published": published, "readBack": back}


if __name__ == "__main__":
    main(run)
