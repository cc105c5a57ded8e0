"""A librdkafka client (confluent-kafka) for the filters' tests: one action per run, its outcome as the JSON result.

    librdkafka_client.py metadata --bootstrap HOST:PORT [--topic T ...]
    librdkafka_client.py produce  --bootstrap HOST:PORT --topic T --records '[["key", "value"], ...]'
    librdkafka_client.py consume  --bootstrap HOST:PORT --topic T --group G --expect N [--until-offset O] [--count-only]
    librdkafka_client.py create-topics --bootstrap HOST:PORT --topics '[["name", partitions, replication, {"key": "value"}], ...]'

Every action takes --set NAME=VALUE (any librdkafka setting) and, when SLUICE_OAUTH_TOKEN is in the environment,
authenticates with SASL/OAUTHBEARER: the oauth_cb hands librdkafka that token (minted by the Java test), with the
expiry and principal read from its claims. Produce and consume results list the throttle times (ms) librdkafka's
throttle_cb reported. The test asserts on the result; this script only reports what happened.
"""
import argparse
import base64
import json
import os
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, libversion
from confluent_kafka.admin import AdminClient, NewTopic

from sluice_harness import env, log, main

errors_seen = []
throttles_seen = []


def token_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def oauth_cb(_config):
    token = env("SLUICE_OAUTH_TOKEN")
    claims = token_claims(token)
    log("oauth_cb: token for", claims["sub"], "expiring at", claims["exp"])
    return token, float(claims["exp"]), claims["sub"], {}


def error_cb(error):
    log("client error:", error.name(), error.str())
    errors_seen.append({"name": error.name(), "message": error.str(), "fatal": error.fatal()})


def throttle_cb(event):
    """A broker (here: the proxy) asked the client to back off (throttle_time_ms in a response, KIP-219)."""
    throttles_seen.append(round(event.throttle_time * 1000))


class Log:
    """librdkafka's own log lines, into the test log."""

    def log(self, level, msg, *args, **_kwargs):
        log("librdkafka:", msg % args if args else msg)


def config(args):
    conf = {
        "bootstrap.servers": args.bootstrap,
        "client.id": "sluice-librdkafka-test",
        "error_cb": error_cb,
        "throttle_cb": throttle_cb,
        "logger": Log(),
        "socket.timeout.ms": 10000,
        "reconnect.backoff.ms": 100,
        "reconnect.backoff.max.ms": 500,
    }
    if "SLUICE_OAUTH_TOKEN" in os.environ:
        conf.update({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER", "oauth_cb": oauth_cb})
    for setting in args.set:
        name, _, value = setting.partition("=")
        conf[name] = value
    return conf


def client_errors():
    return list(errors_seen)


def metadata(args):
    producer = Producer(config(args))
    listed = producer.list_topics(timeout=15)
    asked = {}
    for topic in args.topic:
        entry = producer.list_topics(topic=topic, timeout=15).topics.get(topic)
        asked[topic] = None if entry is None or entry.error is None else entry.error.name()
    producer.flush(5)
    return {
        "topics": sorted(name for name, t in listed.topics.items() if t.error is None),
        "topicErrors": {name: t.error.name() for name, t in listed.topics.items() if t.error is not None},
        "asked": asked,
        "clientErrors": client_errors(),
    }


def produce(args):
    conf = {"acks": "all", "linger.ms": 50, "message.timeout.ms": 30000}
    conf.update(config(args))
    producer = Producer(conf)
    deliveries = []

    def delivered(error, message, key):
        deliveries.append({
            "key": key,
            "error": None if error is None else error.name(),
            "message": None if error is None else error.str(),
            "partition": message.partition(),
            "offset": message.offset() if error is None else None,
        })

    for key, value in json.loads(args.records):
        try:
            producer.produce(args.topic, key=None if key is None else key.encode(), value=None if value is None else value.encode(),
                             on_delivery=lambda error, message, key=key: delivered(error, message, key))
        except KafkaException as e:
            # Refused before it was sent, from what librdkafka knows of the topic (its metadata, an earlier refusal).
            log("produce refused locally:", e.args[0].name(), e.args[0].str())
            deliveries.append({"key": key, "error": e.args[0].name(), "partition": None, "offset": None, "local": True})
    remaining = producer.flush(40)
    log("delivered", len(deliveries), "reports;", remaining, "still queued")
    return {"deliveries": deliveries, "undelivered": remaining, "clientErrors": client_errors(), "throttles": list(throttles_seen)}


def consume(args):
    conf = {
        "group.id": args.group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
    }
    conf.update(config(args))
    consumer = Consumer(conf)
    consumer.subscribe([args.topic])
    records, fetch_errors, eof = [], [], {}
    deadline = time.monotonic() + args.timeout

    def position():
        assigned = consumer.assignment()
        return {"%s-%d" % (tp.topic, tp.partition): tp.offset for tp in consumer.position(assigned)} if assigned else {}

    def done():
        # The fetcher's end: librdkafka's position() only moves with delivered records, so records the proxy removed
        # at the end of a partition show in the end-of-partition offset, not in position().
        if len(records) < args.expect:
            return False
        return args.until_offset is None or (bool(eof) and min(eof.values()) >= args.until_offset)

    while not done() and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None:
            continue
        if message.error():
            if message.error().code() == KafkaError._PARTITION_EOF:
                eof["%s-%d" % (message.topic(), message.partition())] = message.offset()
            else:
                log("fetch error:", message.error().name(), message.error().str())
                fetch_errors.append(message.error().name())
            continue
        records.append({
            "key": None if message.key() is None else message.key().decode("utf-8", "replace"),
            "value": None if message.value() is None else message.value().decode("utf-8", "replace"),
            "offset": message.offset(),
            "partition": message.partition(),
        })
    positions = position()
    committed = {}
    if records:
        consumer.commit(asynchronous=False)
        committed = {"%s-%d" % (tp.topic, tp.partition): tp.offset for tp in consumer.committed(consumer.assignment(), timeout=15)}
    consumer.close()
    log("consumed", len(records), "records; positions", positions, "end of partition at", eof, "committed", committed,
        "throttled", len(throttles_seen), "times")
    if args.count_only:
        # Many or large records: their offsets say whether any is missing or repeated, their values would only fill the log.
        records = {"count": len(records), "distinctOffsets": len({(r["partition"], r["offset"]) for r in records}),
                   "bytes": sum(len(r["value"] or "") for r in records)}
    return {"throttles": list(throttles_seen), "records": records, "fetchErrors": fetch_errors, "positions": positions, "endOfPartition": eof, "committed": committed,
            "clientErrors": client_errors()}


def create_topics(args):
    """AdminClient.create_topics, one future per topic: its error's name and text (what an application prints), or null."""
    admin = AdminClient(config(args))
    topics = [NewTopic(name, num_partitions=partitions, replication_factor=replication, config=configs or {})
              for name, partitions, replication, configs in json.loads(args.topics)]
    results = {}
    for name, future in admin.create_topics(topics, operation_timeout=15, request_timeout=20).items():
        try:
            future.result()
            results[name] = {"error": None, "message": None}
        except KafkaException as e:
            log("create_topics", name, "failed:", e.args[0].name(), e.args[0].str())
            results[name] = {"error": e.args[0].name(), "message": e.args[0].str(), "printed": str(e)}
    return {"results": results, "clientErrors": client_errors()}


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["metadata", "produce", "consume", "create-topics"])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--set", action="append", default=[], help="a librdkafka setting NAME=VALUE")
    parser.add_argument("--topic", action="append", default=[])
    parser.add_argument("--records", help="JSON list of [key, value] (null for none)")
    parser.add_argument("--topics", help="JSON list of [name, partitions, replication factor, configs] to create")
    parser.add_argument("--group")
    parser.add_argument("--expect", type=int, default=0, help="records to read before stopping")
    parser.add_argument("--until-offset", type=int, help="and read on until the end of the partition is at this offset")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--count-only", action="store_true", help="report how many records (and distinct offsets), not the records")
    args = parser.parse_args()
    log("librdkafka", libversion()[0], args.action)
    if args.action == "metadata":
        return metadata(args)
    if args.action == "create-topics":
        return create_topics(args)
    args.topic = args.topic[0]
    return produce(args) if args.action == "produce" else consume(args)


main(run)
