"""Reads the bridge's SSE stream with httpx + httpx-sse, as a Python service would (issue 23).

    sse_resume.py --url http://host:port/ws/sse?endpoint=... --count N

Environment: TOKEN (sent as Authorization: Bearer), LAST_EVENT_ID (optional: resume from it). Reads events until N
message events arrived, then disconnects. Result: the events' types in order, each message's [epoch, seq, n], the
last id seen, and the response's content type.
"""
import argparse
import json
import os

import httpx
from httpx_sse import connect_sse

from sluice_harness import env, log, main


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    headers = {"Authorization": "Bearer " + env("TOKEN")}
    last_event_id = os.environ.get("LAST_EVENT_ID")
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    types, messages, last_id, retry = [], [], None, None
    with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
        with connect_sse(client, "GET", args.url, headers=headers) as source:
            source.response.raise_for_status()
            content_type = source.response.headers["content-type"]
            for event in source.iter_sse():
                if event.retry is not None:
                    retry = event.retry
                if not event.data:
                    # The retry hint alone.
                    continue
                data = json.loads(event.data)
                types.append(event.event)
                if event.id:
                    last_id = event.id
                if event.event == "message":
                    messages.append([data["epoch"], data["seq"], data["payload"]["n"]])
                    log("message", data["epoch"], data["seq"])
                    if len(messages) == args.count:
                        break
    return {"types": types, "messages": messages, "lastId": last_id, "contentType": content_type, "retry": retry}


if __name__ == "__main__":
    main(run)
