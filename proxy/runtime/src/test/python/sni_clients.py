"""librdkafka (confluent-kafka) through one SNI port of the proxy, for SniRoutingTest. The test runs it in a mount
namespace whose /etc/hosts maps the SNI names to 127.0.0.1; the clients get nothing but bootstrap.servers and the CA.

    sni_clients.py scenario --bootstrap HOST:PORT --ca FILE --topic T --group G --dir D
        A producer and a consumer group of two (the second joins: a rebalance), then, in step with the test through
        files in D, the same with one broker stopped ("stopped" appears) and after it came back and leads again
        ("started" appears). Writes D/phase1.json and D/phase2.json as each phase ends; the result holds all three.

    sni_clients.py refused --bootstrap HOST:PORT [--bootstrap HOST:PORT ...] --ca FILE
        A producer per bootstrap where the proxy refuses the server name; the result holds, per bootstrap, the errors
        librdkafka reported.
"""
import argparse
import json
import os
import time

from confluent_kafka import Consumer, Producer, libversion

from sluice_harness import log, main

errors_seen = []


def error_cb(error):
    log("client error:", error.name(), error.str())
    errors_seen.append({"name": error.name(), "message": error.str()})


class Log:
    def log(self, level, msg, *args, **_kwargs):
        log("librdkafka:", msg % args if args else msg)


def client_config(args, **extra):
    # Only what any client needs to reach a TLS cluster: where it is and whom to trust. The callbacks report, they
    # change nothing about how the client connects.
    conf = {"bootstrap.servers": args.bootstrap, "security.protocol": "SSL", "ssl.ca.location": args.ca,
            "error_cb": error_cb, "logger": Log()}
    conf.update(extra)
    return conf


def brokers(producer, topic):
    metadata = producer.list_topics(topic=topic, timeout=20)
    partitions = metadata.topics[topic].partitions
    return {
        "brokers": sorted("%d=%s:%d" % (b.id, b.host, b.port) for b in metadata.brokers.values()),
        "leaders": {str(p): partitions[p].leader for p in sorted(partitions)},
    }


def produce(producer, topic, phase, count):
    failures = []

    def delivered(err, _msg):
        if err is not None:
            failures.append(str(err))

    for i in range(count):
        producer.produce(topic, key="k%d" % i, value="%s-%d" % (phase, i), on_delivery=delivered)
    left = producer.flush(60)
    if left or failures:
        raise RuntimeError("%s: %d undelivered, failures %s" % (phase, left, failures))
    log(phase, ": produced", count)


def consume(consumers, phase, count, timeout=90):
    """Polls every consumer until count values of phase arrived; returns how many each consumer got."""
    wanted = {"%s-%d" % (phase, i) for i in range(count)}
    seen = set()
    per_consumer = [0] * len(consumers)
    deadline = time.monotonic() + timeout
    while not wanted <= seen:
        if time.monotonic() > deadline:
            raise RuntimeError("%s: consumed %d of %d" % (phase, len(wanted & seen), count))
        for index, consumer in enumerate(consumers):
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                log("consumer", index, "error:", msg.error())
                continue
            value = msg.value().decode()
            if value in wanted and value not in seen:
                seen.add(value)
                per_consumer[index] += 1
    log(phase, ": consumed", count, "per consumer", per_consumer)
    return per_consumer


def assignment_size(consumer):
    return len(consumer.assignment())


def await_assignments(consumers, test, timeout=60):
    deadline = time.monotonic() + timeout
    while not test([assignment_size(c) for c in consumers]):
        if time.monotonic() > deadline:
            raise RuntimeError("assignments %s after %ds" % ([assignment_size(c) for c in consumers], timeout))
        for consumer in consumers:
            consumer.poll(0.1)
    return [assignment_size(c) for c in consumers]


def await_file(path, timeout=180):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise RuntimeError("the test did not create %s within %ds" % (path, timeout))
        time.sleep(0.1)


def write(path, value):
    with open(path + ".tmp", "w") as f:
        json.dump(value, f)
    os.rename(path + ".tmp", path)


def scenario(args):
    log("librdkafka", libversion())
    count = 30
    producer = Producer(client_config(args))
    group = {"group.id": args.group, "auto.offset.reset": "earliest"}
    first = Consumer(client_config(args, **group))
    first.subscribe([args.topic])
    alone = await_assignments([first], lambda sizes: sizes[0] == 3)
    produce(producer, args.topic, "alone", count)
    consume([first], "alone", count)
    first.commit(asynchronous=False)

    second = Consumer(client_config(args, **group))
    second.subscribe([args.topic])
    shared = await_assignments([first, second], lambda sizes: min(sizes) > 0 and sum(sizes) == 3)
    log("rebalanced: assignments", shared)
    produce(producer, args.topic, "shared", count)
    per_consumer = consume([first, second], "shared", count)
    phase1 = {"alone": alone, "shared": shared, "perConsumer": per_consumer, **brokers(producer, args.topic)}
    write(os.path.join(args.dir, "phase1.json"), phase1)

    await_file(os.path.join(args.dir, "stopped"))
    produce(producer, args.topic, "stopped", count)
    consume([first, second], "stopped", count)
    phase2 = brokers(producer, args.topic)
    write(os.path.join(args.dir, "phase2.json"), phase2)

    await_file(os.path.join(args.dir, "started"))
    produce(producer, args.topic, "started", count)
    consume([first, second], "started", count)
    phase3 = brokers(producer, args.topic)
    first.close()
    second.close()
    return {"phase1": phase1, "phase2": phase2, "phase3": phase3}


def refused(args):
    """One producer per bootstrap, each served until librdkafka reports the handshake failure; its errors per bootstrap."""
    outcome = {}
    for bootstrap in args.bootstrap:
        errors_seen.clear()
        producer = Producer(client_config(argparse.Namespace(bootstrap=bootstrap, ca=args.ca)))
        # error_cb runs from poll(): serve it until the failed handshake is reported.
        deadline = time.monotonic() + 15
        while not any("SSL" in e["message"] for e in errors_seen) and time.monotonic() < deadline:
            producer.poll(0.1)
        outcome[bootstrap] = list(errors_seen)
    return outcome


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["scenario", "refused"])
    parser.add_argument("--bootstrap", required=True, action="append")
    parser.add_argument("--ca", required=True)
    parser.add_argument("--topic")
    parser.add_argument("--group")
    parser.add_argument("--dir")
    args = parser.parse_args()
    if args.action == "refused":
        return refused(args)
    args.bootstrap = args.bootstrap[0]
    return scenario(args)


if __name__ == "__main__":
    main(run)
