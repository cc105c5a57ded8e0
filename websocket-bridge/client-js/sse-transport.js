// The SSE/HTTP transport (docs/bridge-http.md): subscriptions read as Server-Sent Events with fetch(), one stream per
// group of subscriptions that share a selection, and publishes as HTTP POST. In: the client's subscriptions, token and
// positions; out: the server's events handed to the client (connected, subscribed, messages, close) and acks. The
// client uses it where WebSocket is unavailable or its upgrade keeps failing; its other transport is
// websocket-transport.js; both offer the client publish, renew and close, and this one start/changed for its streams.

import { BridgeError, RETRYABLE_ERROR_CODES } from './bridge-protocol.js';
import { encodeEventId } from './sse-event-id.js';
import { SseParser } from './sse-parser.js';

/** An error body longer than this is not read further: the JSON error of the bridge is a few hundred bytes. */
const MAX_ERROR_BODY = 64 * 1024;

/** At most `limit` bytes of a response body as text (an error body; the rest is not read). */
async function readBounded(response, limit) {
  if (!response.body) {
    return '';
  }
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  try {
    while (size < limit) {
      const { value, done } = await reader.read();
      if (done) {
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.length, all.length - at));
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

/** The BridgeError an HTTP refusal stands for: the code and message of its JSON body, the Retry-After hint. */
async function httpError(response) {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText || ''}`.trim();
  let retryAfterMs;
  try {
    const body = JSON.parse(await readBounded(response, MAX_ERROR_BODY));
    if (body && typeof body.code === 'string') {
      code = body.code;
      message = typeof body.message === 'string' ? body.message : message;
      retryAfterMs = typeof body.retryAfterMs === 'number' ? body.retryAfterMs : undefined;
    }
  } catch (e) {
    // not the bridge's JSON (a proxy's page): the status says what we know
  }
  const retryAfter = response.headers.get('retry-after');
  if (retryAfterMs === undefined && retryAfter !== null && /^[0-9]{1,6}$/.test(retryAfter.trim())) {
    retryAfterMs = Number(retryAfter.trim()) * 1000;
  }
  if (response.status === 401 && code.startsWith('http_')) {
    code = 'invalid_token';
  }
  return new BridgeError(code, message, retryAfterMs);
}

/** A JWT's claims as the token says them (not verified: the node verifies); {} for anything else. */
function tokenClaims(token) {
  try {
    const part = String(token).split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0))));
    return claims && typeof claims === 'object' ? claims : {};
  } catch (e) {
    return {};
  }
}

/** The key of a subscription's SSE group: subscriptions that share it can share a stream (one filter/fields/delta per URL). */
function groupKey(subscription) {
  return JSON.stringify([subscription.filter ?? null, subscription.fields ?? null, Boolean(subscription.options.delta),
    Boolean(subscription.options.snapshot)]);
}

/**
 * The SSE transport's stand-in for a WebSocket: one "connection" of the client, made of one stream per group of
 * subscriptions (at most `maxEndpointsPerStream` endpoints each), all with the same token. Any stream the server ends
 * or the network cuts ends the whole connection, so the client's reconnect logic (backoff, a fresh token, positions)
 * is the WebSocket's: every stream is reopened with the positions the client tracks. Publishes go as HTTP POSTs with
 * the same token.
 */
export class SseConnection {
  constructor(client, token) {
    this.client = client;
    this.token = token;
    this.opened = false;
    this.closed = false;
    // group key -> the streams serving it, each {endpoints, subscriptions (Map), abort, closeEvent, token, retries}
    this.groups = new Map();
    this.dirty = new Set();
  }

  /** Opens a stream for every group; with no subscription there is nothing to open and the client counts as connected. */
  start() {
    for (const subscription of this.client.subscriptions.values()) {
      this.dirty.add(groupKey(subscription));
    }
    this._syncDirty();
  }

  /** A subscription of this group was added or removed: reopen its streams (once per turn of the event loop). */
  changed(subscription) {
    this.dirty.add(groupKey(subscription));
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        this._syncDirty();
      });
    }
  }

  /** A new token (refresh): every stream is reopened with it and the positions held. */
  renew(token) {
    this.token = token;
    this.renewing = true;
    for (const key of this.groups.keys()) {
      this.dirty.add(key);
    }
    this._syncDirty(true);
  }

  close() {
    this.closed = true;
    for (const streams of this.groups.values()) {
      streams.forEach((s) => s.abort.abort());
    }
    this.groups.clear();
  }

  _syncDirty(force = false) {
    if (this.closed) {
      return;
    }
    const keys = [...this.dirty];
    this.dirty.clear();
    for (const key of keys) {
      this._sync(key, force);
    }
    if (!this.opened && this.groups.size === 0) {
      // Nothing to read, so no node has looked at the token yet: the first stream (or publish) will. Connected meanwhile,
      // with what the token itself says (unverified, a JWT's `sub` and `exp`) and no node; the first stream's
      // `connected` replaces it as `session`.
      this.opened = true;
      const claims = tokenClaims(this.token);
      queueMicrotask(() => this.client._onConnected({
        type: 'connected', transport: 'sse', node: '',
        subject: typeof claims.sub === 'string' ? claims.sub : '',
        expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : 0,
      }));
    }
  }

  _sync(key, force) {
    const members = [...this.client.subscriptions.values()].filter((s) => groupKey(s) === key);
    const max = this.client.maxEndpointsPerStream;
    const wanted = [];
    for (let i = 0; i < members.length; i += max) {
      wanted.push(members.slice(i, i + max));
    }
    const current = this.groups.get(key) || [];
    const same = !force && current.length === wanted.length && current.every((stream, i) => stream.endpoints.length === wanted[i].length
      && stream.endpoints.every((e, j) => e === wanted[i][j].endpoint));
    if (same) {
      return;
    }
    current.forEach((s) => s.abort.abort());
    if (wanted.length === 0) {
      this.groups.delete(key);
      return;
    }
    this.groups.set(key, wanted.map((subs) => this._open(subs)));
  }

  _open(subscriptions, retries = 0) {
    const stream = {
      endpoints: subscriptions.map((s) => s.endpoint),
      subscriptions: new Map(subscriptions.map((s) => [s.endpoint, s])),
      abort: new AbortController(),
      token: this.token,
      retries,
      closeEvent: null,
    };
    this._run(stream, subscriptions);
    return stream;
  }

  _current(stream) {
    return !this.closed && !stream.abort.signal.aborted;
  }

  _url(subscriptions) {
    const first = subscriptions[0];
    const query = new URLSearchParams();
    for (const s of subscriptions) {
      query.append('endpoint', s.endpoint);
    }
    if (first.filter !== undefined) {
      query.set('filter', JSON.stringify(first.filter));
    }
    if (first.fields !== undefined) {
      query.set('fields', first.fields.join(','));
    }
    if (first.options.delta) {
      query.set('delta', 'true');
    }
    // Resuming: the positions each subscription holds (none for a new one, or one that does not recover). The server
    // ignores `snapshot` when resuming, so a snapshot is asked for only by a stream that starts from nothing.
    const resuming = subscriptions.some((s) => s.options.recover !== false && s.positions.size > 0);
    const snapshot = !resuming && Boolean(first.options.snapshot);
    for (const s of subscriptions) {
      s.snapshotting = snapshot;
    }
    if (snapshot) {
      query.set('snapshot', 'true');
    }
    if (resuming) {
      query.set('lastEventId', encodeEventId(subscriptions.map((s) => (s.options.recover === false ? new Map() : s.positions))));
    }
    return `${this.client.httpUrl}/sse?${query}`;
  }

  async _run(stream, subscriptions) {
    const client = this.client;
    let response;
    try {
      response = await client.fetchImpl(this._url(subscriptions), {
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${stream.token}` },
        credentials: 'omit', cache: 'no-store', signal: stream.abort.signal,
      });
    } catch (e) {
      if (this._current(stream)) {
        this._ended(stream, { code: 1006, reason: `the event stream could not be opened: ${e.message}` });
      }
      return;
    }
    if (!this._current(stream)) {
      response.body?.cancel().catch(() => {});
      return;
    }
    if (!response.ok) {
      this._refused(stream, response.status, await httpError(response));
      return;
    }
    const type = response.headers.get('content-type') || '';
    if (!type.toLowerCase().startsWith('text/event-stream')) {
      response.body?.cancel().catch(() => {});
      this._ended(stream, { code: 1006, reason: `the answer is ${type || 'untyped'}, not an event stream` });
      return;
    }
    const parser = new SseParser((event) => this._event(stream, event), {
      maxLineLength: client.maxSseLineLength,
      onRetry: (ms) => {
        client.sseRetry = Math.min(ms, client.reconnect.maxDelay);
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || !this._current(stream)) {
          break;
        }
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch (e) {
      reader.cancel().catch(() => {});
      if (this._current(stream)) {
        if (e instanceof BridgeError) {
          client._emit('error', e);
        }
        this._ended(stream, { code: 1006, reason: `the event stream failed: ${e.message}` });
      }
      return;
    }
    parser.end();
    if (this._current(stream)) {
      this._ended(stream, stream.closeEvent || { code: 1006, reason: 'the event stream ended without a close event' });
    }
  }

  _event(stream, event) {
    if (!this._current(stream)) {
      return;
    }
    let m;
    try {
      m = JSON.parse(event.data);
    } catch (e) {
      this.client._emit('error', new BridgeError('malformed', 'the server sent an event that is not JSON'));
      return;
    }
    switch (m.type) {
      case 'connected':
        this.client.session = m;
        if (!this.opened) {
          this.opened = true;
          this.client._onConnected(m);
        } else if (this.renewing && stream.token === this.token) {
          this.renewing = false;
          this.client._emit('refreshed', { type: 'refreshed', expiresAt: m.expiresAt });
        }
        break;
      case 'subscribed':
        stream.retries = 0;
        stream.subscriptions.get(m.endpoint)?.subscribed(m);
        break;
      case 'close':
        stream.closeEvent = { code: m.code, reason: m.reason };
        break;
      case 'expiring':
        // Every stream of the token warns; the first warning renews them all, the others are the same news.
        if (stream.token === this.token && this.warnedFor !== this.token) {
          this.warnedFor = this.token;
          this.client._dispatch(m, stream.subscriptions);
        }
        break;
      default:
        this.client._dispatch(m, stream.subscriptions);
    }
  }

  /** The stream was refused before it started: a status and the server's error. */
  _refused(stream, status, error) {
    if (status === 401) {
      this._ended(stream, { code: 4001, reason: error.message });
    } else if (status === 429 || (status === 503 && error.code === 'busy') || RETRYABLE_ERROR_CODES.has(error.code)) {
      // Refused for now (rate, busy, the node's reader not started): the same stream later, after the server's hint.
      const { initialDelay, maxDelay, factor, jitter } = this.client.reconnect;
      const ceiling = Math.min(maxDelay, initialDelay * Math.pow(factor, stream.retries));
      const delay = Math.max(ceiling * (1 - jitter * Math.random()), error.retryAfterMs || 0);
      setTimeout(() => {
        const streams = [...this.groups.values()].find((list) => list.includes(stream));
        if (streams && this._current(stream)) {
          streams[streams.indexOf(stream)] = this._open([...stream.subscriptions.values()], stream.retries + 1);
        }
      }, delay);
    } else if (status === 400 || status === 403 || status === 404) {
      // A subscription the server will not serve (forbidden, unknown_endpoint, invalid_filter...): retrying cannot help.
      // The ones of this stream not yet confirmed are what changed: of those, the one the server's message names (it
      // names the endpoint it refused), else all of them. If all were confirmed before (a new token that allows less),
      // the named one, else all.
      const all = [...stream.subscriptions.values()];
      const unconfirmed = all.filter((s) => !s.confirmed);
      const candidates = unconfirmed.length > 0 ? unconfirmed : all;
      const words = new Set(String(error.message).split(/\s+/));
      const named = candidates.filter((s) => words.has(s.endpoint));
      for (const subscription of candidates.length > 1 && named.length === 1 ? named : candidates) {
        this.client._refuse(subscription, new BridgeError(error.code, error.message, error.retryAfterMs));
        this.dirty.add(groupKey(subscription));
      }
      this._syncDirty();
    } else {
      this._ended(stream, { code: 1011, reason: `the event stream was refused: ${error.message}` });
    }
  }

  /**
   * A publish as `POST {path}/publish?endpoint=E` (docs/bridge-http.md "Publishing"): the Content-Type says what the
   * body is, as `format` does on WebSocket. The answer is the same ack, or the same BridgeError with the server's code.
   */
  async publish(endpoint, payload, options) {
    const client = this.client;
    const headers = { Authorization: `Bearer ${client.currentToken}` };
    let body;
    if (payload instanceof Uint8Array) {
      headers['Content-Type'] = 'application/octet-stream';
      body = payload;
    } else if (payload === null || payload === undefined) {
      body = undefined; // a tombstone: no body and no Content-Type
    } else if (typeof payload === 'string' && options.format !== 'json') {
      headers['Content-Type'] = 'text/plain; charset=utf-8';
      body = payload;
    } else {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(payload);
    }
    let response;
    try {
      response = await client.fetchImpl(`${client.httpUrl}/publish?${new URLSearchParams({ endpoint })}`, {
        method: 'POST', headers, body, credentials: 'omit', cache: 'no-store',
      });
    } catch (e) {
      // The request may or may not have reached the node: as a WebSocket publish cut by a disconnect.
      throw new BridgeError('disconnected', `the publish could not be completed: ${e.message}`);
    }
    if (!response.ok) {
      throw await httpError(response);
    }
    let ack;
    try {
      ack = JSON.parse(await readBounded(response, MAX_ERROR_BODY));
    } catch (e) {
      throw new BridgeError('malformed', 'the publish answer is not JSON');
    }
    return { endpoint: ack.endpoint, epoch: ack.epoch, seq: ack.seq };
  }

  /** A stream ended without us closing it: the connection ends, and the client reconnects every stream. */
  _ended(stream, closeEvent) {
    this.client._onClose(this, closeEvent);
  }
}
