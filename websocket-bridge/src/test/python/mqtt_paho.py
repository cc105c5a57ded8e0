"""The bridge's MQTT listener judged by Eclipse Paho's Python client (paho-mqtt 2.x), MQTT 3.1.1 or 5.0.

    mqtt_paho.py scenario --host H --port P --version 3|5 --topic T --bootstrap KAFKA

Environment: TOKEN (reads T/live/*, writes T/in/*), EXPIRED_TOKEN. In order:

1. a subscriber subscribes T/live/# (QoS 1), T/live/+ (QoS 0, the same bridge subscription), T/secret (forbidden)
   and T/nowhere/# (no such key prefix is forbidden as well: the token reads only live/*);
2. librdkafka (confluent-kafka) produces live/a, live/b, secret, other/x and live/deep/c;
3. the subscriber publishes QoS 1 to T/in/dev (JSON) and to T/secret (forbidden: MQTT 5 PUBACK 0x87, 3.1.1 a close);
   and librdkafka reads T back: the permitted publish is there once;
4. a client with EXPIRED_TOKEN is refused at CONNECT;
5. a client with a will on T/in/will connects and its socket is cut without DISCONNECT.

Result: the in/dev values librdkafka read, the SUBACK codes, every message received (topic, payload, qos, retain, user properties), the publish outcomes,
the expired client's CONNACK code.
"""
import argparse
import json
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from confluent_kafka import Consumer, Producer, TopicPartition

from sluice_harness import env, log, main

WAIT = 30


def client(version, client_id, token, will=None):
    protocol = mqtt.MQTTv5 if version == 5 else mqtt.MQTTv311
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol)
    c.username_pw_set("device", token)
    if will:
        c.will_set(will, json.dumps({"gone": client_id}), qos=1)
    return c


def wait(condition, what):
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.05)


def connect(c, host, port, version):
    outcome = {}
    done = threading.Event()

    def on_connect(client, userdata, flags, reason_code, properties):
        outcome["code"] = reason_code.value
        done.set()

    def on_disconnect(client, userdata, flags, reason_code, properties):
        outcome.setdefault("code", reason_code.value)
        outcome["disconnected"] = True
        done.set()

    c.on_connect = on_connect
    c.on_disconnect = on_disconnect
    c.connect(host, port, keepalive=30)
    c.loop_start()
    if not done.wait(WAIT):
        raise RuntimeError("no CONNACK")
    return outcome


def read_back(bootstrap, topic, key):
    """The values of the records with this key, read with librdkafka from the start to the end offset now."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "mqtt-readback", "enable.auto.commit": False})
    tp = TopicPartition(topic, 0, 0)
    _, end = consumer.get_watermark_offsets(tp, timeout=WAIT)
    consumer.assign([tp])
    values = []
    position = 0
    deadline = time.monotonic() + WAIT
    try:
        while position < end and time.monotonic() < deadline:
            m = consumer.poll(1.0)
            if m is None:
                continue
            if m.error():
                raise RuntimeError(str(m.error()))
            position = m.offset() + 1
            if m.key() is not None and m.key().decode("utf-8") == key:
                values.append(m.value().decode("utf-8"))
    finally:
        consumer.close()
    return values


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["scenario"])
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--version", type=int, choices=[3, 5], required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--bootstrap", required=True)
    args = parser.parse_args()
    t = args.topic
    v = args.version
    token = env("TOKEN")

    received = []
    subacks = {}
    sub = client(v, "paho-sub-%d" % v, token)
    sub.on_message = lambda c, u, m: received.append({
        "topic": m.topic, "payload": m.payload.decode("utf-8"), "qos": m.qos, "retain": bool(m.retain),
        "properties": dict(m.properties.UserProperty) if v == 5 and hasattr(m.properties, "UserProperty") else {}})
    sub.on_subscribe = lambda c, u, mid, codes, props: subacks.__setitem__(mid, [rc.value for rc in codes])
    connected = connect(sub, args.host, args.port, v)
    log("subscriber connected", connected)
    filters = [(t + "/live/#", 1), (t + "/live/+", 0), (t + "/secret", 1), (t + "/nowhere/#", 0)]
    _, mid = sub.subscribe(filters)
    wait(lambda: mid in subacks, "SUBACK")
    log("SUBACK", subacks[mid])

    producer = Producer({"bootstrap.servers": args.bootstrap})
    for key in ["live/a", "secret", "other/x", "live/b", "live/deep/c"]:
        producer.produce(t, key=key, value=json.dumps({"key": key}).encode("utf-8"))
    producer.flush(WAIT)
    wait(lambda: len(received) >= 3, "three messages")

    outcomes = {}

    def on_publish(client, userdata, mid, reason_code, properties):
        outcomes[mid] = reason_code.value
    sub.on_publish = on_publish
    ok = sub.publish(t + "/in/dev", json.dumps({"from": "paho", "version": v}), qos=1)
    wait(lambda: ok.mid in outcomes, "PUBACK of the permitted publish")
    closed_on_forbidden = None
    forbidden = None
    if v == 5:
        info = sub.publish(t + "/secret", "nope", qos=1)
        wait(lambda: info.mid in outcomes, "PUBACK of the forbidden publish")
        forbidden = outcomes[info.mid]
    else:
        gone = threading.Event()
        sub.on_disconnect = lambda c, u, f, rc, p: gone.set()
        sub.publish(t + "/secret", "nope", qos=1)
        closed_on_forbidden = gone.wait(WAIT)
    time.sleep(0.5)
    sub.loop_stop()
    sub.disconnect()

    expired = client(v, "paho-expired-%d" % v, env("EXPIRED_TOKEN"))
    expired_outcome = connect(expired, args.host, args.port, v)
    expired.loop_stop()
    log("expired token", expired_outcome)

    willing = client(v, "paho-will-%d" % v, token, will=t + "/in/will")
    connect(willing, args.host, args.port, v)
    willing.loop_stop()
    # Cut without DISCONNECT: the bridge publishes the will.
    willing.socket().close()

    return {"librdkafka": read_back(args.bootstrap, t, "in/dev"), "connected": connected, "subacks": subacks[mid], "received": received, "publishAck": outcomes[ok.mid],
            "forbiddenAck": forbidden, "closedOnForbidden": closed_on_forbidden, "expired": expired_outcome}


main(run)
