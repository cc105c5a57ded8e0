// The client of the Sluice WebSocket bridge, for browsers and Node (a global WebSocket, or one passed in). Plain ES
// module, no dependencies beyond json-patch.js beside it, no build step; its types are sluice-bridge.d.ts. The protocol
// it speaks is docs/bridge-protocol.md; its API is docs/bridge-client-js.md. Where WebSocket is unavailable or its
// upgrade keeps failing, it falls back to Server-Sent Events read with fetch() and publishes with HTTP POST
// (docs/bridge-http.md).

import { applyPatch } from './json-patch.js';

/** Close codes after which reconnecting cannot help (docs/bridge-protocol.md#close-codes). */
const FATAL_CLOSE_CODES = new Set([1009]);
/** Close codes that mean "this token is no good": reconnecting needs a new one from the token provider. */
const TOKEN_CLOSE_CODES = new Set([4001, 4002]);
/** Error codes that refuse a request for now, not for good: the same request is sent again after a backoff. */
const RETRYABLE_ERROR_CODES = new Set(['busy', 'rate_limited']);
/** The transports the client speaks, in the order it tries them by default. */
const TRANSPORTS = ['websocket', 'sse'];
/** Longest SSE line (and event) the client reads: a record of Kafka's default 1 MiB limit, base64 in JSON, fits. */
const DEFAULT_MAX_SSE_LINE = 4 * 1024 * 1024;
/** An error body longer than this is not read further: the JSON error of the bridge is a few hundred bytes. */
const MAX_ERROR_BODY = 64 * 1024;

/** A request the server answered with `error`, or one that could not be sent or answered. */
export class BridgeError extends Error {
  constructor(code, message, retryAfterMs) {
    super(message || code);
    this.name = 'BridgeError';
    this.code = code;
    if (retryAfterMs !== undefined) {
      // The server's hint (rate_limited): a retry sooner than this is refused again.
      this.retryAfterMs = retryAfterMs;
    }
  }
}

/**
 * Decodes a message's payload by its `format`: JSON values as they are (an object or array, or for a topic with a record
 * format any JSON value), strings for text, bytes for base64, null for none.
 */
export function decodePayload(format, payload) {
  switch (format) {
    case 'base64': {
      const binary = atob(payload);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) {
        bytes[i] = binary.charCodeAt(i);
      }
      return bytes;
    }
    case 'none':
      return null;
    default:
      return payload;
  }
}

function encodeBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** A deep copy of a JSON value (undefined stays undefined); a TypeError for what JSON cannot carry at all. */
function copyJson(value, name) {
  if (value === undefined) {
    return undefined;
  }
  const text = JSON.stringify(value);
  if (text === undefined) {
    throw new TypeError(`options.${name} is not a JSON value`);
  }
  return JSON.parse(text);
}

/**
 * An incremental parser of a `text/event-stream` body (the WHATWG "event stream interpretation"): text goes in as it
 * arrives, in chunks split anywhere; complete events come out. Lines end with CRLF, LF or CR (a CR at the end of one
 * chunk and an LF at the start of the next are one line end); `:` lines are comments; the fields are `event`, `data`
 * (several join with LF), `id` (one containing NUL is ignored, as the standard says) and `retry` (digits only). A line,
 * or an event's data, longer than `maxLineLength` characters throws a BridgeError (`sse_line_too_long`): the reader
 * must not hold an endless line in memory, so the stream is abandoned.
 */
export class SseParser {
  /**
   * @param {function({type: string, data: string, id: string}): void} onEvent
   * @param {object} [options] maxLineLength (characters, default 4 Mi), onRetry(ms), onComment(text)
   */
  constructor(onEvent, options = {}) {
    this.onEvent = onEvent;
    this.maxLineLength = options.maxLineLength || DEFAULT_MAX_SSE_LINE;
    this.onRetry = options.onRetry;
    this.onComment = options.onComment;
    this.partial = '';
    this.afterCR = false;
    this.first = true;
    this.lastEventId = '';
    this._reset();
  }

  _reset() {
    this.type = '';
    this.data = null;
    this.dataLength = 0;
  }

  /** Parses the next piece of text; events complete in it are passed to onEvent before it returns. */
  push(chunk) {
    let start = 0;
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        start = 1; // a byte order mark at the very start is not part of the first line
      }
    }
    if (this.afterCR && chunk.length > start) {
      this.afterCR = false;
      if (chunk.charCodeAt(start) === 10) {
        start++;
      }
    }
    for (let i = start; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c !== 10 && c !== 13) {
        continue;
      }
      const line = this.partial + chunk.slice(start, i);
      this.partial = '';
      this._checkLength(line.length);
      if (c === 13) {
        if (i + 1 < chunk.length) {
          if (chunk.charCodeAt(i + 1) === 10) {
            i++;
          }
        } else {
          this.afterCR = true;
        }
      }
      start = i + 1;
      this._line(line);
    }
    this._checkLength(this.partial.length + chunk.length - start);
    this.partial += chunk.slice(start);
  }

  /** The stream ended: an event without its blank line is discarded, as the standard says. */
  end() {
    this.partial = '';
    this._reset();
  }

  _checkLength(length) {
    if (length > this.maxLineLength) {
      this.partial = '';
      this._reset();
      throw new BridgeError('sse_line_too_long', `the event stream sent a line over ${this.maxLineLength} characters`);
    }
  }

  _line(line) {
    if (line === '') {
      this._dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58) { // ':'
      this.onComment?.(line.slice(1));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) {
      value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.dataLength += value.length + 1;
        this._checkLength(this.dataLength);
        (this.data ||= []).push(value);
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventId = value;
        }
        break;
      case 'retry':
        if (/^[0-9]{1,15}$/.test(value)) {
          this.onRetry?.(Number(value));
        }
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  _dispatch() {
    const { type, data } = this;
    this._reset();
    if (data === null) {
      return; // no data: nothing to dispatch (an `id:` alone still set the last id)
    }
    this.onEvent({ type: type || 'message', data: data.join('\n'), id: this.lastEventId });
  }
}

/** Unsigned LEB128 of a non-negative integer up to 2^53 (arithmetic, not 32-bit bit operations). */
function pushVarint(bytes, n) {
  while (n >= 128) {
    bytes.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
}

function base64url(bytes) {
  return encodeBase64(Uint8Array.from(bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The stream id of docs/bridge-http.md "Ids and Last-Event-ID" for these position maps (epoch -> seq), one per
 * endpoint of the stream in URL order: `1.` + base64url of, per endpoint, a varint count, then per position the
 * epoch's UTF-8 length and bytes and `seq + 1`.
 */
function encodeEventId(positionMaps) {
  const utf8 = new TextEncoder();
  const bytes = [];
  for (const positions of positionMaps) {
    pushVarint(bytes, positions.size);
    for (const [epoch, seq] of positions) {
      const encoded = utf8.encode(epoch);
      pushVarint(bytes, encoded.length);
      for (const b of encoded) {
        bytes.push(b);
      }
      pushVarint(bytes, seq + 1);
    }
  }
  return `1.${base64url(bytes)}`;
}

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

/**
 * One subscription, kept across reconnects. `positions` maps each epoch (a topic-partition's history) to the highest
 * `seq` received, which is what a resubscription recovers from.
 */
class Subscription {
  constructor(client, endpoint, callback, options) {
    this.client = client;
    this.endpoint = endpoint;
    this.callback = callback;
    this.options = options;
    // The selection is fixed at subscribe time: every resubscription (reconnect, retry after busy) sends the same one,
    // so recovery applies the filter and field list the subscription's positions were built under. A copy, so that a
    // caller changing its filter object afterwards cannot change what a later recovery selects.
    this.filter = copyJson(options.filter, 'filter');
    this.fields = copyJson(options.fields, 'fields');
    this.positions = new Map();
    // Subscribes refused with busy or rate_limited since the last success: how far the retry backs off.
    this.retries = 0;
    // Per exact endpoint, the last payload and its seq: the base of the next delta.
    this.latest = new Map();
    this.active = true;
    this.ready = new Promise((resolve, reject) => {
      this._resolve = resolve;
      this._reject = reject;
    });
    // Nobody has to await `ready`; an unobserved forbidden subscription must not be an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** The request that (re)joins the stream, recovering from the positions held, if any. */
  request() {
    const request = { type: 'subscribe', endpoint: this.endpoint };
    if (this.options.delta) {
      request.delta = true;
    }
    // Sent as given: the server validates them (invalid_filter, filter_too_large) and says where they are wrong.
    if (this.filter !== undefined) {
      request.filter = this.filter;
    }
    if (this.fields !== undefined) {
      request.fields = this.fields;
    }
    this.snapshotting = false;
    if (this.options.recover !== false && this.positions.size > 0) {
      request.recover = [...this.positions].map(([epoch, seq]) => ({ epoch, seq }));
    } else if (this.options.snapshot) {
      request.snapshot = true;
      this.snapshotting = true;
    }
    return request;
  }

  subscribed(reply) {
    this.retries = 0;
    this.confirmed = true;
    // Positions of the reply are where the node stands now. Where we hold a position, the recovered messages that
    // follow the reply move it; taking the node's instead would skip them if the connection broke meanwhile.
    for (const { epoch, seq } of reply.positions || []) {
      if (!this.positions.has(epoch)) {
        this.positions.set(epoch, seq);
      }
    }
    // Snapshot messages (the latest of each endpoint) are at or below these positions: they are not repeats.
    this.snapshotUpTo = this.snapshotting ? new Map((reply.positions || []).map(({ epoch, seq }) => [epoch, seq])) : null;
    this._resolve(this);
  }

  /** A message or delta for this subscription; returns false when it was one already delivered. */
  deliver(m) {
    const last = this.positions.get(m.epoch);
    const snapshot = this.snapshotUpTo !== null && this.snapshotUpTo !== undefined && this.snapshotUpTo.has(m.epoch)
      && m.seq <= this.snapshotUpTo.get(m.epoch);
    if (!snapshot && last !== undefined && m.seq <= last) {
      this.client.stats.duplicatesDropped++;
      return false;
    }
    let payload;
    if (m.type === 'delta') {
      const base = this.latest.get(m.endpoint);
      if (!base || base.seq !== m.base) {
        // The server sends a delta only on top of what it sent this connection; anything else is a bug to report.
        this.client._emit('error', new BridgeError('delta_base_missing',
          `delta for ${m.endpoint} seq ${m.seq} needs base ${m.base}, which this client does not have`));
        return false;
      }
      try {
        payload = applyPatch(base.payload, m.patch);
      } catch (e) {
        this.client._emit('error', new BridgeError('delta_failed', `delta for ${m.endpoint} seq ${m.seq}: ${e.message}`));
        return false;
      }
    } else {
      payload = decodePayload(m.format, m.payload);
    }
    if (!snapshot) {
      this.positions.set(m.epoch, m.seq);
    }
    if (this.options.delta) {
      this.latest.set(m.endpoint, { seq: m.seq, payload });
    }
    const message = {
      endpoint: m.endpoint, epoch: m.epoch, seq: m.seq, timestamp: m.timestamp,
      format: m.type === 'delta' ? 'json' : m.format, payload, delta: m.type === 'delta', snapshot,
    };
    try {
      this.callback(message);
    } catch (e) {
      this.client._emit('error', e);
    }
    return true;
  }

  /** A gap notice for this subscription; returns false when it was one already delivered. */
  gap(m) {
    if (m.reason === 'unknown_epoch') {
      // That history is gone (topic recreated, or not read here): what we hold of it means nothing any more.
      this.positions.delete(m.epoch);
    } else if (m.reason === 'undecodable') {
      // One record that does not decode, sent in its place in the stream like a message: it moves the position like
      // one, so a recovery after a reconnect starts after it and does not announce it twice.
      const last = this.positions.get(m.epoch);
      if (last !== undefined && m.toSeq <= last) {
        return false;
      }
      this.positions.set(m.epoch, m.toSeq);
    }
    this.options.onGap?.(m);
    return true;
  }

  unsubscribe() {
    return this.client.unsubscribe(this.endpoint);
  }
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
 * is the WebSocket's: every stream is reopened with the positions the client tracks.
 */
class SseConnection {
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

  /** A stream ended without us closing it: the connection ends, and the client reconnects every stream. */
  _ended(stream, closeEvent) {
    this.client._onClose(this, closeEvent);
  }
}

/**
 * A connection to a bridge that survives disconnects: it reconnects with exponential backoff and jitter, logs in
 * with a fresh token from the provider, and resubscribes with the last epoch/seq of each subscription so that no
 * message is missed or delivered twice.
 */
export class SluiceBridge {
  /**
   * @param {string} url ws:// or wss:// URL of the bridge, path included (e.g. ws://host:8080/ws)
   * @param {object} options
   * @param {string|function(): (string|Promise<string>)} options.token a JWT, or a function returning one (called on
   *        every connect and when the server says the token is `expiring`)
   * @param {object} [options.reconnect] {initialDelay: 250, maxDelay: 10000, factor: 2, jitter: 0.5} (milliseconds)
   * @param {function} [options.WebSocket] a WebSocket implementation; default: the global one
   * @param {string[]} [options.transports] the order to try: default ['websocket', 'sse']
   * @param {number} [options.fallbackAfter] WebSocket attempts failing in a row before the next transport (2) ...
   * @param {number} [options.fallbackAfterConnected] ... or this many (10) once a WebSocket session worked
   * @param {function} [options.fetch] a fetch implementation for SSE and HTTP publish; default: the global one
   * @param {object} [options.sse] maxEndpointsPerStream (16), maxLineLength (4 Mi characters)
   */
  constructor(url, options = {}) {
    if (options.token === undefined) {
      throw new TypeError('options.token is required: a JWT or a function returning one');
    }
    this.url = url;
    // The same path over HTTP: ws://host/ws -> http://host/ws (and an http(s) URL works for both transports).
    this.httpUrl = url.replace(/^ws(s?):/i, 'http$1:').replace(/\/+$/, '');
    this.wsUrl = url.replace(/^http(s?):/i, 'ws$1:');
    this.tokenSource = options.token;
    this.reconnect = { initialDelay: 250, maxDelay: 10000, factor: 2, jitter: 0.5, ...(options.reconnect || {}) };
    this.WebSocketImpl = options.WebSocket || globalThis.WebSocket;
    this.fetchImpl = options.fetch || (typeof globalThis.fetch === 'function' ? globalThis.fetch.bind(globalThis) : undefined);
    this.transports = SluiceBridge._transports(options.transports);
    this.fallbackAfter = options.fallbackAfter ?? 2;
    this.fallbackAfterConnected = options.fallbackAfterConnected ?? 10;
    for (const name of ['fallbackAfter', 'fallbackAfterConnected']) {
      if (!(this[name] >= 1)) {
        throw new TypeError(`options.${name} must be a number of attempts, at least 1 (Infinity: never)`);
      }
    }
    this.maxEndpointsPerStream = options.sse?.maxEndpointsPerStream ?? 16;
    this.maxSseLineLength = options.sse?.maxLineLength ?? DEFAULT_MAX_SSE_LINE;
    // Skip what this runtime cannot do (no WebSocket in the page, no fetch); nothing left is a programming error.
    this.transportIndex = 0;
    this._skipUnavailable();
    if (this.transportIndex >= this.transports.length) {
      throw new TypeError(`none of the transports ${JSON.stringify(this.transports)} is available here`
        + ' (no WebSocket: pass options.WebSocket; no fetch: pass options.fetch)');
    }
    this.failedUpgrades = 0;
    this.webSocketWorked = false;
    this.sseRetry = 0;
    this.subscriptions = new Map();
    this.pending = new Map();
    this.listeners = new Map();
    this.nextId = 1;
    this.attempt = 0;
    this.state = 'idle';
    this.ws = null;
    this.session = null;
    this.stats = { connects: 0, duplicatesDropped: 0 };
  }

  static _transports(transports) {
    if (transports === undefined) {
      return [...TRANSPORTS];
    }
    if (!Array.isArray(transports) || transports.length === 0 || new Set(transports).size !== transports.length
        || transports.some((t) => !TRANSPORTS.includes(t))) {
      throw new TypeError(`options.transports must be a non-empty list of distinct transports out of ${JSON.stringify(TRANSPORTS)}`);
    }
    return [...transports];
  }

  _available(transport) {
    return transport === 'websocket' ? typeof this.WebSocketImpl === 'function' : typeof this.fetchImpl === 'function';
  }

  _skipUnavailable() {
    while (this.transportIndex < this.transports.length && !this._available(this.transports[this.transportIndex])) {
      this.transportIndex++;
    }
  }

  /** The transport in use now, or about to be tried: `websocket` or `sse`. */
  get transport() {
    return this.transports[this.transportIndex];
  }

  /** Registers a listener: connected, disconnected, expiring, refreshed, error, gap, conflated, unsubscribed. */
  on(event, listener) {
    if (!this.listeners.has(event)) {
      this.listeners.set(event, new Set());
    }
    this.listeners.get(event).add(listener);
    return () => this.listeners.get(event).delete(listener);
  }

  _emit(event, value) {
    for (const listener of this.listeners.get(event) || []) {
      try {
        listener(value);
      } catch (e) {
        if (event !== 'error') {
          this._emit('error', e);
        }
      }
    }
  }

  /** Opens the connection; resolves with the `connected` message the first time the server accepts the token. */
  connect() {
    if (this.state === 'closed') {
      // Resuming after close(): subscriptions and their positions were kept, so they recover what was missed.
      this.connecting = null;
      this.attempt = 0;
    }
    if (!this.connecting) {
      this.connecting = new Promise((resolve, reject) => {
        this._connected = resolve;
        this._connectFailed = reject;
      });
      this.connecting.catch(() => {});
      this.awaitingConnect = true;
      this.state = 'connecting';
      this._open();
    }
    return this.connecting;
  }

  async _token() {
    return typeof this.tokenSource === 'function' ? await this.tokenSource() : this.tokenSource;
  }

  async _open() {
    let token;
    try {
      token = await this._token();
    } catch (e) {
      this._emit('error', e);
      this._scheduleReconnect();
      return;
    }
    if (this.state === 'closed') {
      return;
    }
    this.currentToken = token;
    if (this.transport === 'sse') {
      const connection = new SseConnection(this, token);
      this.ws = connection;
      connection.start();
      return;
    }
    const ws = new this.WebSocketImpl(this.wsUrl);
    this.ws = ws;
    ws.onopen = () => {
      ws.opened = true;
      this._send({ type: 'connect', token }, (reply) => this._onConnected(reply));
    };
    ws.onmessage = (event) => this._onMessage(ws, event);
    ws.onclose = (event) => this._onClose(ws, event);
    ws.onerror = () => {}; // a close event follows with what we can know
  }

  _onConnected(reply) {
    this.attempt = 0;
    this.stats.connects++;
    this.session = reply;
    this.state = 'connected';
    this.awaitingConnect = false;
    if (this.transport === 'websocket') {
      this.ws.connected = true;
      this.failedUpgrades = 0;
      this.webSocketWorked = true;
    }
    this._emit('connected', reply);
    this._connected(reply);
    if (this.ws instanceof SseConnection) {
      this.ws.start(); // subscriptions made while connecting; streams already open for the others are kept
    } else {
      for (const subscription of this.subscriptions.values()) {
        this._join(subscription);
      }
    }
  }

  /** Refuses a subscription for good: removed, `ready` rejected, and said on the error event. */
  _refuse(subscription, error) {
    if (this.subscriptions.get(subscription.endpoint) === subscription) {
      this.subscriptions.delete(subscription.endpoint);
    }
    subscription.active = false;
    error.endpoint = subscription.endpoint;
    subscription._reject(error);
    // After a reconnect nobody awaits `ready` any more: say it on the error event too.
    this._emit('error', error);
  }

  _join(subscription) {
    if (this.ws instanceof SseConnection) {
      this.ws.changed(subscription); // its group's stream is reopened with it
      return;
    }
    this._send(subscription.request(), (reply) => subscription.subscribed(reply), (error) => {
      if (error.code === 'disconnected') {
        return; // the next connect subscribes again
      }
      if (RETRYABLE_ERROR_CODES.has(error.code)) {
        this._retryJoin(subscription, error);
        return;
      }
      this._refuse(subscription, error);
    });
  }

  /**
   * The node refused the subscribe for now (busy: its Kafka log reads for recovery are all taken; rate_limited: this
   * connection subscribed too fast). Nothing was subscribed, so sending the same request again later loses nothing.
   * Backs off like reconnects, with jitter so that many clients do not retry in step, and never sooner than the
   * server's retryAfterMs.
   */
  _retryJoin(subscription, error) {
    const ws = this.ws;
    const { initialDelay, maxDelay, factor, jitter } = this.reconnect;
    const ceiling = Math.min(maxDelay, initialDelay * Math.pow(factor, subscription.retries));
    const delay = Math.max(ceiling * (1 - jitter * Math.random()), error.retryAfterMs || 0);
    subscription.retries++;
    setTimeout(() => {
      // After a reconnect the subscription was sent again already; after unsubscribe it is no longer wanted.
      if (ws === this.ws && this.state === 'connected' && this.subscriptions.get(subscription.endpoint) === subscription) {
        this._join(subscription);
      }
    }, delay);
  }

  /** Sends a request with an id; the reply (or `error`) with that id goes to the callbacks. */
  _send(request, onReply, onError = (e) => this._emit('error', e)) {
    const id = this.nextId++;
    this.pending.set(id, { onReply, onError });
    this.ws.send(JSON.stringify({ ...request, id }));
    return id;
  }

  _onMessage(ws, event) {
    if (ws !== this.ws) {
      return;
    }
    let m;
    try {
      m = JSON.parse(event.data);
    } catch (e) {
      this._emit('error', new BridgeError('malformed', 'the server sent something that is not JSON'));
      return;
    }
    if (m.id !== undefined && this.pending.has(m.id)) {
      const { onReply, onError } = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.type === 'error') {
        onError(new BridgeError(m.code, m.message, m.retryAfterMs));
      } else {
        onReply(m);
      }
      return;
    }
    this._dispatch(m, this.subscriptions);
  }

  /**
   * A message of the server that answers no request, from either transport: `candidates` are the subscriptions it may
   * be for (all of them on WebSocket; those of its stream on SSE, where each stream delivers a record once).
   */
  _dispatch(m, candidates) {
    switch (m.type) {
      case 'message':
      case 'delta':
        this._route(m, (s) => s.deliver(m), candidates);
        break;
      case 'gap': {
        // A recovery gap names the subscription's endpoint (a prefix's `/.../*` itself); an `undecodable` one names the
        // record's exact endpoint, which a prefix subscription covers: routing finds the subscription either way.
        let fresh = true;
        this._route(m, (s) => {
          fresh = s.gap(m);
        }, candidates);
        if (fresh) {
          this._emit('gap', m);
        }
        break;
      }
      case 'conflated':
        this._route(m, (s) => s.options.onConflated?.(m), candidates);
        this._emit('conflated', m);
        break;
      case 'expiring':
        this._emit('expiring', m);
        this._refresh();
        break;
      case 'unsubscribed':
        // Without an id: the server ended it, e.g. a refreshed token no longer allows it.
        this.subscriptions.get(m.endpoint)?.options.onUnsubscribed?.(m);
        if (this.subscriptions.get(m.endpoint)) {
          this.subscriptions.get(m.endpoint).active = false;
        }
        this.subscriptions.delete(m.endpoint);
        this._emit('unsubscribed', m);
        break;
      case 'error':
        this._emit('error', new BridgeError(m.code, m.message));
        break;
      default:
        break;
    }
  }

  /** A message goes to the subscription of its exact endpoint, else to the longest prefix subscription covering it. */
  _route(m, deliver, candidates = this.subscriptions) {
    const exact = candidates.get(m.endpoint);
    if (exact && exact.active) {
      deliver(exact);
      return;
    }
    let best = null;
    for (const s of candidates.values()) {
      if (!s.active) {
        continue;
      }
      if (s.endpoint.endsWith('/*') && m.endpoint.startsWith(s.endpoint.slice(0, -1))
          && (!best || s.endpoint.length > best.endpoint.length)) {
        best = s;
      }
    }
    if (best) {
      deliver(best);
    }
  }

  async _refresh() {
    if (typeof this.tokenSource !== 'function') {
      return; // a fixed token cannot be renewed; the connection closes with 4002 at expiry
    }
    const ws = this.ws;
    try {
      const token = await this.tokenSource();
      if (ws === this.ws && this.state === 'connected' && ws instanceof SseConnection) {
        // No refresh request on a stream: every stream is reopened with the new token from the positions held.
        this.currentToken = token;
        ws.renew(token);

      } else if (ws === this.ws && this.state === 'connected') {
        this._send({ type: 'refresh', token }, (reply) => this._emit('refreshed', reply));
      }
    } catch (e) {
      this._emit('error', e);
    }
  }

  _onClose(ws, event) {
    if (ws !== this.ws) {
      return;
    }
    this.ws = null;
    if (ws instanceof SseConnection) {
      ws.close();
    } else if (!ws.connected && !TOKEN_CLOSE_CODES.has(event.code) && !FATAL_CLOSE_CODES.has(event.code)
        && this.state !== 'closed') {
      this._failedUpgrade();
    }
    for (const { onError } of this.pending.values()) {
      // A publish in flight may or may not have reached Kafka; the caller decides whether to send it again.
      onError(new BridgeError('disconnected', `connection closed (${event.code}) before the reply`));
    }
    this.pending.clear();
    if (ws.opened) {
      // Only connections that were open; failed attempts while the bridge is unreachable just back off.
      this._emit('disconnected', { code: event.code, reason: event.reason });
    }
    if (this.state === 'closed') {
      return;
    }
    this.state = 'disconnected';
    const fatal = FATAL_CLOSE_CODES.has(event.code)
      || (TOKEN_CLOSE_CODES.has(event.code) && typeof this.tokenSource !== 'function');
    if (fatal) {
      this.state = 'closed';
      const error = new BridgeError('closed', `the bridge closed the connection (${event.code} ${event.reason})`);
      if (this.awaitingConnect) {
        this.awaitingConnect = false;
        this._connectFailed(error);
      }
      this._emit('error', error);
      return;
    }
    this._scheduleReconnect();
  }

  /**
   * A WebSocket attempt ended before `connected` (the upgrade failed, or the connection was cut before the reply).
   * After `fallbackAfter` in a row (`fallbackAfterConnected` once a WebSocket session worked in this client's life) the
   * next transport of the list is used, for the rest of the client's life.
   */
  _failedUpgrade() {
    this.failedUpgrades++;
    const limit = this.webSocketWorked ? this.fallbackAfterConnected : this.fallbackAfter;
    if (this.failedUpgrades >= limit && this.transportIndex + 1 < this.transports.length) {
      this.transportIndex++;
      this._skipUnavailable();
      this.failedUpgrades = 0;
      this.attempt = 0;
    }
  }

  _scheduleReconnect() {
    if (this.state === 'closed') {
      return;
    }
    const { initialDelay, maxDelay, factor, jitter } = this.reconnect;
    const ceiling = Math.min(maxDelay, initialDelay * Math.pow(factor, this.attempt));
    // Jitter spreads the reconnects of many clients after a node goes away, so they do not arrive as one wave. On SSE
    // never sooner than the stream's `retry:`.
    const delay = Math.max(ceiling * (1 - jitter * Math.random()), this.transport === 'sse' ? this.sseRetry : 0);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.state !== 'closed') {
        this.state = 'connecting';
        this._open();
      }
    }, delay);
  }

  /**
   * Subscribes to an exact endpoint or a prefix ending in `/*`. The callback gets {endpoint, epoch, seq, timestamp,
   * format, payload, delta, snapshot}; payload is a JSON value (json: an object or array, or any JSON value for a topic
   * with a record format), a string (text), a Uint8Array (base64) or null.
   *
   * @param {object} [options] recover (default true): resume from the last position after a reconnect; snapshot:
   *        start with the latest cached message; delta: receive JSON Patch deltas (applied here); filter: only the
   *        records it selects (docs/bridge-filters.md); fields: JSON Pointers into the value, the payload holds just
   *        those; onGap(gap), onConflated(notice), onUnsubscribed(notice). filter and fields are copied and sent with
   *        every (re)subscribe; the server validates them (invalid_filter, filter_too_large, too_many_groups reject
   *        `ready`, not retried)
   * @returns {Subscription} with `ready` (a Promise of the subscription, rejected with the server's error) and
   *          `unsubscribe()`
   */
  subscribe(endpoint, callback, options = {}) {
    if (this.subscriptions.has(endpoint)) {
      throw new BridgeError('already_subscribed', `already subscribed to ${endpoint}`);
    }
    const subscription = new Subscription(this, endpoint, callback, options);
    this.subscriptions.set(endpoint, subscription);
    if (this.state === 'connected') {
      this._join(subscription);
    }
    return subscription;
  }

  /** Stops a subscription; its positions are forgotten. Resolves once the server confirmed (at once when offline). */
  unsubscribe(endpoint) {
    const subscription = this.subscriptions.get(endpoint);
    if (!subscription) {
      return Promise.resolve();
    }
    subscription.active = false;
    this.subscriptions.delete(endpoint);
    if (this.state !== 'connected') {
      return Promise.resolve();
    }
    if (this.ws instanceof SseConnection) {
      // Its group's stream is reopened without it; nothing more of it is delivered from now on.
      this.ws.changed(subscription);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this._send({ type: 'unsubscribe', endpoint }, () => resolve(), reject));
  }

  /**
   * Publishes to an exact endpoint. Objects, arrays, numbers and booleans go as JSON, strings as text, Uint8Array
   * (or ArrayBuffer) as bytes, null as a tombstone. Resolves with {endpoint, epoch, seq} once Kafka has the record
   * (acks=all); rejects with a BridgeError carrying the server's code (forbidden, publish_failed...).
   */
  publish(endpoint, payload, options = {}) {
    if (this.state !== 'connected') {
      return Promise.reject(new BridgeError('not_connected', 'not connected'));
    }
    if (payload instanceof ArrayBuffer) {
      payload = new Uint8Array(payload);
    }
    if (this.ws instanceof SseConnection) {
      return this._publishOverHttp(endpoint, payload, options);
    }
    const request = { type: 'publish', endpoint };
    if (payload instanceof Uint8Array) {
      request.format = 'base64';
      request.payload = encodeBase64(payload);
    } else {
      request.payload = payload === undefined ? null : payload;
      if (options.format) {
        request.format = options.format;
      }
    }
    return new Promise((resolve, reject) => this._send(request,
      (ack) => resolve({ endpoint: ack.endpoint, epoch: ack.epoch, seq: ack.seq }), reject));
  }

  /**
   * A publish as `POST {path}/publish?endpoint=E` (docs/bridge-http.md "Publishing"): the Content-Type says what the
   * body is, as `format` does on WebSocket. The answer is the same ack, or the same BridgeError with the server's code.
   */
  async _publishOverHttp(endpoint, payload, options) {
    const headers = { Authorization: `Bearer ${this.currentToken}` };
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
      response = await this.fetchImpl(`${this.httpUrl}/publish?${new URLSearchParams({ endpoint })}`, {
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

  /**
   * Closes the connection; no reconnect. Subscriptions and their positions are kept: a later connect() resumes them
   * and recovers what was published meanwhile.
   */
  close() {
    this.state = 'closed';
    if (this.reconnectTimer) {
      clearTimeout(this.reconnectTimer);
    }
    const ws = this.ws;
    if (ws) {
      // Settle everything now rather than when the close handshake ends, so a connect() right after starts clean.
      this._onClose(ws, { code: 1000, reason: 'client closed' });
      if (!(ws instanceof SseConnection)) {
        ws.close(1000, 'client closed');
      }
    }
  }
}
