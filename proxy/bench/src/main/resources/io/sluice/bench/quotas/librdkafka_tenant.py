"""One tenant's librdkafka consumer (confluent-kafka) for `sluice bench quotas`: reads its topic's one partition from
the start, through the proxy, and reports what it got.

    librdkafka_tenant.py --bootstrap HOST:PORT --topic T --group G --name NAME --drain-seconds S

SLUICE_OAUTH_TOKEN (environment) is the tenant's token. Each record's value starts with its sequence number and the
time it was sent (two big-endian 64-bit integers: number, microseconds since the epoch), written by the benchmark's
kafka-clients producer. The script prints "ready" once it is connected and authenticated, then consumes; when the
benchmark writes a line with the number of records its producer had acknowledged to stdin, it reads on until it has
them all (or S seconds pass), then prints the result: records, distinct sequence numbers, those of the acknowledged ones
it never got, the time from the first record to the last, end-to-end latency percentiles (send to receipt, same machine clock), librdkafka's throttle reports
(throttle_cb) and client errors.
"""
import argparse
import base64
import json
import struct
import sys
import threading
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from sluice_harness import env, log, main


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--drain-seconds", type=float, default=60)
    args = parser.parse_args()

    throttles, errors = [], []

    def oauth_cb(_config):
        token = env("SLUICE_OAUTH_TOKEN")
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return token, float(claims["exp"]), claims["sub"], {}

    def throttle_cb(event):
        throttles.append(event.throttle_time * 1000)

    def error_cb(error):
        log(args.name, "client error:", error.name(), error.str())
        errors.append(error.name())

    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "client.id": "sluice-bench-" + args.name,
        "group.id": args.group,
        "enable.auto.commit": False,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER",
        "oauth_cb": oauth_cb,
        "throttle_cb": throttle_cb,
        "error_cb": error_cb,
    })
    consumer.list_topics(args.topic, timeout=30)
    consumer.assign([TopicPartition(args.topic, 0, OFFSET_BEGINNING)])
    print("ready", flush=True)

    expected = []

    def read_expected():
        line = sys.stdin.readline()
        expected.append(int(line.strip() or "0"))

    threading.Thread(target=read_expected, daemon=True).start()

    seen = bytearray()
    distinct = 0
    records = 0
    latencies = []
    fetch_errors = []
    first_at = last_at = None
    last_report = time.monotonic()
    counted_at_report = 0
    deadline = None
    while True:
        now = time.monotonic()
        if expected and deadline is None:
            deadline = now + args.drain_seconds
        if expected and (distinct >= expected[0] or now >= deadline):
            break
        message = consumer.poll(0.2)
        if message is None:
            continue
        if message.error():
            if message.error().code() != KafkaError._PARTITION_EOF:
                fetch_errors.append(message.error().name())
            continue
        value = message.value()
        records += 1
        last_at = now
        if first_at is None:
            first_at = now
        if value is None or len(value) < 16:
            continue
        seq, sent_us = struct.unpack(">qq", value[:16])
        latencies.append(time.time_ns() // 1000 - sent_us)
        byte, bit = divmod(seq, 8)
        if byte >= len(seen):
            seen.extend(bytes(max(byte + 1 - len(seen), len(seen))))
        if not seen[byte] & (1 << bit):
            seen[byte] |= 1 << bit
            distinct += 1
        if now - last_report >= 5:
            log(args.name, "consumed", records, "records, %.0f/s" % ((records - counted_at_report) / (now - last_report)))
            last_report, counted_at_report = now, records
    consumer.close()
    acked = expected[0] if expected else 0
    missing = sum(1 for s in range(acked) if s // 8 >= len(seen) or not seen[s // 8] & (1 << (s % 8)))
    latencies.sort()

    def percentile(p):
        return None if not latencies else latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] / 1000.0

    log(args.name, "done:", records, "records,", distinct, "distinct,", missing, "of", acked, "acknowledged missing;",
        len(throttles), "throttle reports")
    return {"records": records, "distinct": distinct, "seconds": (last_at - first_at) if records > 1 else 0, "missing": missing, "finished": distinct >= acked,
            "latencyMs": {"p50": percentile(50), "p99": percentile(99), "max": percentile(100)},
            "throttle": {"count": len(throttles), "totalMs": sum(throttles), "maxMs": max(throttles, default=0)},
            "fetchErrors": fetch_errors, "clientErrors": errors}


main(run)
