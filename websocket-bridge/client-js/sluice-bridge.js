// The client of the Sluice WebSocket bridge, for browsers and Node (a global WebSocket, or one passed in). Plain ES
// module, no dependencies beyond json-patch.js beside it, no build step; its types are sluice-bridge.d.ts. The protocol
// it speaks is docs/bridge-protocol.md; its API is docs/bridge-client-js.md.

import { applyPatch } from './json-patch.js';

/** Close codes after which reconnecting cannot help (docs/bridge-protocol.md#close-codes). */
const FATAL_CLOSE_CODES = new Set([1009]);
/** Close codes that mean "this token is no good": reconnecting needs a new one from the token provider. */
const TOKEN_CLOSE_CODES = new Set([4001, 4002]);
/** Error codes that refuse a request for now, not for good: the same request is sent again after a backoff. */
const RETRYABLE_ERROR_CODES = new Set(['busy', 'rate_limited']);

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
   */
  constructor(url, options = {}) {
    if (options.token === undefined) {
      throw new TypeError('options.token is required: a JWT or a function returning one');
    }
    this.url = url;
    this.tokenSource = options.token;
    this.reconnect = { initialDelay: 250, maxDelay: 10000, factor: 2, jitter: 0.5, ...(options.reconnect || {}) };
    this.WebSocketImpl = options.WebSocket || globalThis.WebSocket;
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
    const ws = new this.WebSocketImpl(this.url);
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
    this._emit('connected', reply);
    this._connected(reply);
    for (const subscription of this.subscriptions.values()) {
      this._join(subscription);
    }
  }

  _join(subscription) {
    this._send(subscription.request(), (reply) => subscription.subscribed(reply), (error) => {
      if (error.code === 'disconnected') {
        return; // the next connect subscribes again
      }
      if (RETRYABLE_ERROR_CODES.has(error.code)) {
        this._retryJoin(subscription, error);
        return;
      }
      this.subscriptions.delete(subscription.endpoint);
      subscription.active = false;
      error.endpoint = subscription.endpoint;
      subscription._reject(error);
      // After a reconnect nobody awaits `ready` any more: say it on the error event too.
      this._emit('error', error);
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
    switch (m.type) {
      case 'message':
      case 'delta':
        this._route(m, (s) => s.deliver(m));
        break;
      case 'gap': {
        // A recovery gap names the subscription's endpoint (a prefix's `/.../*` itself); an `undecodable` one names the
        // record's exact endpoint, which a prefix subscription covers: routing finds the subscription either way.
        let fresh = true;
        this._route(m, (s) => {
          fresh = s.gap(m);
        });
        if (fresh) {
          this._emit('gap', m);
        }
        break;
      }
      case 'conflated':
        this._route(m, (s) => s.options.onConflated?.(m));
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
  _route(m, deliver) {
    const exact = this.subscriptions.get(m.endpoint);
    if (exact) {
      deliver(exact);
      return;
    }
    let best = null;
    for (const s of this.subscriptions.values()) {
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
      if (ws === this.ws && this.state === 'connected') {
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

  _scheduleReconnect() {
    if (this.state === 'closed') {
      return;
    }
    const { initialDelay, maxDelay, factor, jitter } = this.reconnect;
    const ceiling = Math.min(maxDelay, initialDelay * Math.pow(factor, this.attempt));
    // Jitter spreads the reconnects of many clients after a node goes away, so they do not arrive as one wave.
    const delay = ceiling * (1 - jitter * Math.random());
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
    const request = { type: 'publish', endpoint };
    if (payload instanceof ArrayBuffer) {
      payload = new Uint8Array(payload);
    }
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
      ws.close(1000, 'client closed');
    }
  }
}
