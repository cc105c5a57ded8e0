"""Hostile and victim clients of the WebSocket bridge written with Python's `websockets` library, for the bridge's tests.

    ws_hostile.py forgery   --url ws://HOST:PORT/ws --topic T --bootstrap KAFKA   (VICTIM_TOKEN, ATTACKER_TOKEN)
    ws_hostile.py origin    --url ws://HOST:PORT/ws --origin O [--origin O2 ...]  (TOKEN)
    ws_hostile.py flood     --url ws://HOST:PORT/ws --topic T --pairs N           (TOKEN)
    ws_hostile.py half-open --url ws://HOST:PORT/ws --topic T                     (TOKEN)
    ws_hostile.py honest    --url ws://HOST:PORT/ws --topic T --count N           (TOKEN: read and write T/*)

Each prints what it does and ends with a JSON result the JUnit test asserts on. Every frame from the bridge is parsed
strictly (exactly one JSON value, no key twice): a frame with a key twice means two parsers may read two different
messages out of it (JSON.parse keeps the last), so it is reported as unparseable rather than read one way.
"""
import argparse
import asyncio
import json
import time
from urllib.parse import urlparse

from confluent_kafka import Producer
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from sluice_harness import env, log, main

FORGED = '{"a":1},"endpoint":"/chat/admin","type":"message","seq":999999999'
WAIT = 30


class DuplicateKey(ValueError):
    pass


def strict_object(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey("key %r twice" % key)
        seen[key] = value
    return seen


def parse(text):
    # json.loads already refuses anything after the value ("Extra data").
    return json.loads(text, object_pairs_hook=strict_object)


class Client:
    """One WebSocket connection speaking the bridge protocol; frames that do not parse strictly are kept apart."""

    def __init__(self, name, ws):
        self.name, self.ws, self.next_id, self.unparseable = name, ws, 1, []

    @classmethod
    async def open(cls, name, url, token, **kwargs):
        client = cls(name, await connect(url, **kwargs))
        connected = await client.call("connect", token=token)
        if connected["type"] != "connected":
            raise AssertionError("%s: connect answered %s" % (name, connected))
        log(name, "connected as", connected["subject"])
        return client

    async def send(self, type_, **fields):
        request_id = self.next_id
        self.next_id += 1
        await self.ws.send(json.dumps(dict(type=type_, id=request_id, **fields)))
        return request_id

    async def receive(self):
        while True:
            text = await asyncio.wait_for(self.ws.recv(), WAIT)
            try:
                return parse(text)
            except ValueError as e:
                log(self.name, "UNPARSEABLE frame (%s): %s" % (e, text))
                self.unparseable.append({"frame": text, "problem": str(e)})

    async def call(self, type_, **fields):
        request_id = await self.send(type_, **fields)
        while True:
            reply = await self.receive()
            if reply.get("id") == request_id:
                return reply
            log(self.name, "meanwhile:", reply)

    async def close(self):
        await self.ws.close()


async def forgery(args):
    victim = await Client.open("victim", args.url, env("VICTIM_TOKEN"))
    attacker = await Client.open("attacker", args.url, env("ATTACKER_TOKEN"))
    subscribed = await victim.call("subscribe", endpoint="/%s/*" % args.topic)
    assert subscribed["type"] == "subscribed", subscribed
    ack = await attacker.call("publish", endpoint="/%s/room" % args.topic, payload=FORGED)
    assert ack["type"] == "ack", ack
    log("attacker published the forged text, acked with seq", ack["seq"])

    # Other producers write to Kafka directly, here librdkafka: their records take the same path through the bridge.
    direct = [FORGED, '{"a":1,"a":2}', "[1] [2]", ' {"a": [1, {"b": null}]}\n']
    producer = Producer({"bootstrap.servers": args.bootstrap, "acks": "all"})
    for value in direct:
        producer.produce(args.topic, key=b"room", value=value.encode())
        producer.flush(WAIT)
    log("produced", len(direct), "records straight to Kafka")

    received = []
    deadline = time.monotonic() + WAIT
    while len(received) + len(victim.unparseable) < 1 + len(direct) and time.monotonic() < deadline:
        frame = await victim.receive()
        if frame.get("type") == "message":
            received.append(frame)
        else:
            log("victim: other frame", frame)
    await victim.close()
    await attacker.close()
    return {"ackSeq": ack["seq"], "received": received, "unparseable": victim.unparseable}


async def origin(args):
    outcomes = {}
    for page in args.origin:
        try:
            client = await Client.open("origin " + page, args.url, env("TOKEN"), origin=page)
            outcomes[page] = {"status": 101, "connected": True}
            await client.close()
        except InvalidStatus as refused:
            log("upgrade with Origin", page, "refused:", refused.response.status_code, refused.response.reason_phrase)
            outcomes[page] = {"status": refused.response.status_code, "connected": False}
    return {"outcomes": outcomes}


async def flood(args):
    client = await Client.open("flooder", args.url, env("TOKEN"))
    endpoint = "/%s/k" % args.topic
    started = time.monotonic()
    # All requests written before any reply is read: a client that does not wait for answers.
    await asyncio.gather(*(client.send(t, endpoint=endpoint) for _ in range(args.pairs) for t in ("subscribe", "unsubscribe")))
    counts, codes, retry_after = {}, {}, None
    for _ in range(2 * args.pairs):
        reply = await client.receive()
        counts[reply["type"]] = counts.get(reply["type"], 0) + 1
        if reply["type"] == "error":
            codes[reply["code"]] = codes.get(reply["code"], 0) + 1
            if reply["code"] == "rate_limited":
                retry_after = reply.get("retryAfterMs")
    seconds = time.monotonic() - started
    log("replies:", counts, "errors:", codes, "in %.2f s" % seconds)
    # What a well-behaved client does: wait as advised and try again. The advice of the last refusal read may be
    # stale by one token (a subscribe admitted after it took the refill), so a few rounds are allowed.
    after, attempts, wait = None, 0, retry_after
    while wait is not None and attempts < 5:
        await asyncio.sleep(wait / 1000)
        attempts += 1
        reply = await client.call("subscribe", endpoint=endpoint)
        after = reply["type"]
        log("after waiting the advised", wait, "ms, subscribe answered", reply)
        wait = reply.get("retryAfterMs") if reply.get("code") == "rate_limited" else None
    await client.close()
    return {"replies": counts, "errors": codes, "retryAfterMs": retry_after, "seconds": seconds, "afterWaiting": after,
            "attempts": attempts, "unparseable": client.unparseable}


async def closed_after(reader, started):
    """Milliseconds from started until the bridge closes the connection (EOF or reset), None if it stays open."""
    try:
        while await asyncio.wait_for(reader.read(4096), WAIT):
            pass
    except asyncio.TimeoutError:
        return None
    except ConnectionError:
        pass
    return round((time.monotonic() - started) * 1000)


async def half_open(args):
    url = urlparse(args.url)
    upgraded = await Client.open("upgraded", args.url, env("TOKEN"))
    started = time.monotonic()
    silent_reader, silent_writer = await asyncio.open_connection(url.hostname, url.port)
    partial_reader, partial_writer = await asyncio.open_connection(url.hostname, url.port)
    # A slowloris: the start of an upgrade request, never finished.
    partial_writer.write(b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnec" % (url.path.encode(), url.netloc.encode()))
    await partial_writer.drain()
    log("opened a silent connection and one with half an upgrade request")
    silent_ms, partial_ms = await asyncio.gather(closed_after(silent_reader, started), closed_after(partial_reader, started))
    log("closed by the bridge after", silent_ms, "ms (silent) and", partial_ms, "ms (partial)")
    for writer in (silent_writer, partial_writer):
        writer.close()
    # The upgraded client outlived the handshake timeout and is still served.
    reply = await upgraded.call("subscribe", endpoint="/%s/k" % args.topic)
    await upgraded.close()
    return {"silentClosedAfterMs": silent_ms, "partialClosedAfterMs": partial_ms, "upgradedReply": reply["type"]}


async def honest(args):
    """An ordinary client while others attack the node: it subscribes, publishes, and reads back what it published."""
    client = await Client.open("honest", args.url, env("TOKEN"))
    endpoint = "/%s/honest" % args.topic
    subscribed = await client.call("subscribe", endpoint=endpoint)
    assert subscribed["type"] == "subscribed", subscribed
    acked, received = [], []
    for n in range(args.count):
        await client.send("publish", endpoint=endpoint, payload="honest %d" % n)
    # Acks and the messages themselves arrive in any order relative to each other.
    deadline = time.monotonic() + WAIT
    while (len(received) < args.count or len(acked) < args.count) and time.monotonic() < deadline:
        frame = await client.receive()
        if frame.get("type") == "message":
            received.append(frame["seq"])
        elif frame.get("type") == "ack":
            acked.append(frame["seq"])
        else:
            log("honest: other frame", frame)
    await client.close()
    log("published and received", len(received), "messages")
    return {"acked": acked, "received": received, "unparseable": client.unparseable}


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["forgery", "origin", "flood", "half-open", "honest"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--topic")
    parser.add_argument("--bootstrap")
    parser.add_argument("--origin", action="append", default=[])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--count", type=int, default=5)
    args = parser.parse_args()
    action = {"forgery": forgery, "origin": origin, "flood": flood, "half-open": half_open, "honest": honest}[args.action]
    return asyncio.run(action(args))


main(run)
