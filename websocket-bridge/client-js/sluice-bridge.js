// The client of the Sluice WebSocket bridge, for browsers and Node (a global WebSocket, or one passed in). Plain ES
// modules, no dependencies, no build step; its types are sluice-bridge.d.ts. The protocol it speaks is
// docs/bridge-protocol.md; its API is docs/bridge-client-js.md. Where WebSocket is unavailable or its upgrade keeps
// failing, it falls back to Server-Sent Events read with fetch() and publishes with HTTP POST (docs/bridge-http.md).
//
// This module is the package's entry point: SluiceBridge (the connection that survives disconnects: reconnects, token
// refresh, the choice of transport, dispatch of the server's messages to subscriptions) and the package's other
// exports. Beside it, each in its own module: bridge-protocol.js (BridgeError, payload formats), subscription.js (one
// subscription and its positions), websocket-transport.js and sse-transport.js (the two transports), sse-parser.js
// and sse-event-id.js (what the SSE transport reads and sends), json-patch.js (deltas).

import { BridgeError, RETRYABLE_ERROR_CODES } from './bridge-protocol.js';
import { DEFAULT_MAX_SSE_LINE } from './sse-parser.js';
import { SseConnection } from './sse-transport.js';
import { Subscription } from './subscription.js';
import { WebSocketConnection } from './websocket-transport.js';

export { BridgeError, decodePayload } from './bridge-protocol.js';
export { SseParser } from './sse-parser.js';

/** Close codes after which reconnecting cannot help (docs/bridge-protocol.md#close-codes). */
const FATAL_CLOSE_CODES = new Set([1009]);
/** Close codes that mean "this token is no good": reconnecting needs a new one from the token provider. */
const TOKEN_CLOSE_CODES = new Set([4001, 4002]);
/** The transports the client speaks, in the order it tries them by default. */
const TRANSPORTS = ['websocket', 'sse'];

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
    this.listeners = new Map();
    this.nextId = 1;
    this.attempt = 0;
    this.state = 'idle';
    // The current connection: a WebSocketConnection or an SseConnection (both: publish, renew, close, opened).
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
    this.ws = new WebSocketConnection(this, token);
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
    this.ws.subscribe(subscription, (error) => {
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
        ws.renew(token);
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
    if (ws instanceof WebSocketConnection) {
      ws.failPending(event);
    }
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
    return this.ws.unsubscribe(endpoint);
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
    // WebSocket: a publish request; SSE: POST {path}/publish (docs/bridge-http.md "Publishing"). The same ack either way.
    return this.ws.publish(endpoint, payload, options);
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
