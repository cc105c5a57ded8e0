"""Reads a topic back with librdkafka (confluent-kafka), for the bridge's HTTP publish tests.

    kafka_readback.py --bootstrap KAFKA --topic T --count N

Prints each record as it is read and ends with a JSON result: the records in offset order, each with its partition,
offset, key (UTF-8 or null) and value (base64, or null for a tombstone).
"""
import argparse
import base64
import time

from confluent_kafka import Consumer, TopicPartition

from sluice_harness import log, main

WAIT = 30


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "readback", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(args.topic, 0, 0)])
    records = []
    deadline = time.monotonic() + WAIT
    try:
        while len(records) < args.count and time.monotonic() < deadline:
            m = consumer.poll(1.0)
            if m is None:
                continue
            if m.error():
                raise RuntimeError(str(m.error()))
            value = m.value()
            records.append({"partition": m.partition(), "offset": m.offset(),
                            "key": None if m.key() is None else m.key().decode("utf-8"),
                            "value": None if value is None else base64.b64encode(value).decode("ascii")})
            log("read", records[-1])
    finally:
        consumer.close()
    return {"records": records}


main(run)
