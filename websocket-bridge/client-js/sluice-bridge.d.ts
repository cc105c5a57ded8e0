// Types of sluice-bridge.js, the client of the Sluice WebSocket bridge and the package's entry point. The protocol is
// docs/bridge-protocol.md, the API docs/bridge-client-js.md. Checked by `tsc --strict` (test/types/) and against the
// module's runtime exports. The errors and payload formats are declared in bridge-protocol.d.ts, the event-stream
// parser in sse-parser.d.ts, beside their modules; the package's internal modules (subscription, the transports, the
// event-id codec) are not reachable through its `exports`, and have no declarations.

import type { JsonValue } from './json-patch.js';

export type { JsonValue } from './json-patch.js';
// The package's one entry point re-exports what its other modules declare (the same runtime objects).
export { BridgeError, decodePayload } from './bridge-protocol.js';
export type { BridgeErrorCode, PayloadFormat } from './bridge-protocol.js';
export { SseParser } from './sse-parser.js';
export type { SseEvent, SseParserOptions } from './sse-parser.js';

/**
 * A JSON object or array: what a `json` message carries from a topic without a record format, and what a delta patches.
 * From a topic with a record format (docs/bridge-formats.md) a `json` payload may be any JSON value.
 */
export type JsonStructure = JsonValue[] | { [member: string]: JsonValue };

/**
 * An RFC 6901 JSON Pointer. In a filter it is rooted at the record view, so it starts with `/value`, `/key` or
 * `/headers` (`/value/price`, `/headers/region`); in `fields` it is rooted at the value (`/price`, `/quote/bid`).
 */
export type JsonPointer = string;

/** What `lt`, `le`, `gt`, `ge` compare with: numbers as numbers, strings by code point. */
export type OrderedLiteral = number | string;

/** The operators of the filter language (docs/bridge-filters.md), each with its operand. */
export interface FilterOperators {
  /** The pointer resolves and its value is JSON-equal to the literal. */
  eq: readonly [JsonPointer, JsonValue];
  /** The pointer resolves and its value is not JSON-equal to the literal. */
  ne: readonly [JsonPointer, JsonValue];
  lt: readonly [JsonPointer, OrderedLiteral];
  le: readonly [JsonPointer, OrderedLiteral];
  gt: readonly [JsonPointer, OrderedLiteral];
  ge: readonly [JsonPointer, OrderedLiteral];
  /** The pointer resolves and its value is JSON-equal to one of the literals. */
  in: readonly [JsonPointer, readonly JsonValue[]];
  /** The pointer resolves to a string starting with this text. */
  prefix: readonly [JsonPointer, string];
  /** The pointer resolves, to anything (JSON null included). */
  exists: JsonPointer;
  /** Every operand matches (`[]` matches everything). */
  all: readonly Filter[];
  /** At least one operand matches (`[]` matches nothing). */
  any: readonly Filter[];
  /** The operand does not match. */
  not: Filter;
}

/** An object with exactly one of T's members: `{eq: [...]}`, never `{eq: [...], ne: [...]}`. */
type ExactlyOne<T> = { [K in keyof T]: { [P in K]: T[P] } & { [P in Exclude<keyof T, K>]?: never } }[keyof T];

/**
 * A subscription filter: a tree of operator objects with one member each, e.g.
 * `{all: [{eq: ['/value/side', 'buy']}, {gt: ['/value/price', 100]}]}`. The server validates it and its limits.
 */
export type Filter = ExactlyOne<FilterOperators>;

interface MessageFields {
  /** The exact endpoint (also under a prefix subscription). */
  endpoint: string;
  /** The topic-partition and its history; opaque, compare for equality only. */
  epoch: string;
  /** The record's Kafka offset: increases within an epoch, with holes. */
  seq: number;
  /** The Kafka record timestamp, epoch milliseconds. */
  timestamp: number;
  /** Arrived as a JSON Patch; `payload` is the whole document after the patch was applied. */
  delta: boolean;
  /** The latest cached message, sent because of `snapshot: true`; it does not move the subscription's position. */
  snapshot: boolean;
}

/**
 * What a subscription's callback receives; `format` tells the type of `payload`. A `json` payload is an object or array,
 * except from a topic with a record format, whose decoded values may be any JSON value (an Avro string is a string).
 * With `fields` it is always an object (`{}` when the value has none of the listed paths).
 */
export type BridgeMessage =
  | (MessageFields & { format: 'json'; payload: JsonValue })
  | (MessageFields & { format: 'text'; payload: string })
  | (MessageFields & { format: 'base64'; payload: Uint8Array })
  | (MessageFields & { format: 'none'; payload: null });

/** Messages a subscription could not receive (docs/bridge-protocol.md#recovery). */
export interface GapNotice {
  type: 'gap';
  endpoint: string;
  epoch: string;
  fromSeq: number;
  /** -1 with `unknown_epoch`. */
  toSeq: number;
  /**
   * `undecodable`: the one record at `fromSeq` (= `toSeq`) does not decode in its topic's record format; it arrives in
   * its place in the stream and moves the subscription's position. Its `endpoint` is the record's exact endpoint.
   */
  reason: 'retention' | 'too_far_behind' | 'unknown_epoch' | 'recovery_failed' | 'undecodable' | (string & {});
}

/** The connection was too slow: `dropped` messages of the endpoint were replaced by the latest one. */
export interface ConflatedNotice {
  type: 'conflated';
  endpoint: string;
  dropped: number;
}

/** The server ended a subscription (e.g. a refreshed token no longer allows it). */
export interface UnsubscribedNotice {
  type: 'unsubscribed';
  endpoint: string;
  reason?: string;
}

/**
 * The server's answer to `connect`. On SSE, the first stream's `connected` event; an SSE client with no subscription
 * has no stream, so it counts as connected at once with `transport: 'sse'`, `node: ''` and the token's own (unverified)
 * `sub` and `exp` (empty and 0 for a token that is not a JWT).
 */
export interface ConnectedMessage {
  type: 'connected';
  /** Present (`'sse'`) only on a message the client made itself, see above. */
  transport?: 'sse';
  /** The node's name. */
  node: string;
  /** The token's subject. */
  subject: string;
  /** When the token expires, epoch milliseconds. */
  expiresAt: number;
}

export interface ExpiringNotice {
  type: 'expiring';
  expiresAt: number;
}

export interface RefreshedMessage {
  type: 'refreshed';
  expiresAt: number;
}

/** Why a connection that was open closed. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** The events `on` takes and what their listeners receive. */
export interface BridgeEvents {
  connected: ConnectedMessage;
  disconnected: CloseInfo;
  expiring: ExpiringNotice;
  refreshed: RefreshedMessage;
  gap: GapNotice;
  conflated: ConflatedNotice;
  unsubscribed: UnsubscribedNotice;
  /** A BridgeError, or whatever the token provider or a callback threw. */
  error: unknown;
}

export interface SubscribeOptions {
  /** After a reconnect, resume from the last position (default true). */
  recover?: boolean;
  /** Start with the latest cached message of the endpoint (of each, for a prefix). */
  snapshot?: boolean;
  /** Receive JSON Patch deltas; the client applies them and the callback gets whole documents. */
  delta?: boolean;
  /** Only the records this filter selects (docs/bridge-filters.md); sent with every (re)subscribe. */
  filter?: Filter;
  /** JSON Pointers into the value: the payload is an object holding just these paths; sent with every (re)subscribe. */
  fields?: readonly JsonPointer[];
  onGap?: (gap: GapNotice) => void;
  onConflated?: (notice: ConflatedNotice) => void;
  onUnsubscribed?: (notice: UnsubscribedNotice) => void;
}

/** One subscription, kept across reconnects. */
export interface Subscription {
  readonly endpoint: string;
  /** Epoch → the highest seq delivered: what a resubscription recovers from. */
  readonly positions: ReadonlyMap<string, number>;
  /** Resolves once the server confirmed; rejects with the server's BridgeError (e.g. `forbidden`). */
  readonly ready: Promise<Subscription>;
  /** False once unsubscribed, refused, or ended by the server. */
  readonly active: boolean;
  /** The filter sent with every (re)subscribe: a copy of the option, taken at subscribe time. */
  readonly filter: Filter | undefined;
  /** The field list sent with every (re)subscribe: a copy of the option, taken at subscribe time. */
  readonly fields: readonly JsonPointer[] | undefined;
  unsubscribe(): Promise<void>;
}

export interface ReconnectOptions {
  /** Milliseconds before the first reconnect attempt (250). */
  initialDelay: number;
  /** Each failed attempt multiplies the delay (2) ... */
  factor: number;
  /** ... up to this many milliseconds (10000). */
  maxDelay: number;
  /** Each delay is shortened by a random fraction up to this (0.5). */
  jitter: number;
}

/** A token, or a function returning one: called on every (re)connect and on `expiring`. */
export type TokenSource = string | (() => string | Promise<string>);

/**
 * A WHATWG WebSocket constructor: the browser's, Node's (22 and later, or 20 with --experimental-websocket), or the
 * `ws` package's. The client sets its on* handlers and calls send and close.
 */
export type WebSocketConstructor = new (url: string) => object;

/** How the client reaches the bridge: WebSocket, or Server-Sent Events read with fetch() plus HTTP POST publish. */
export type Transport = 'websocket' | 'sse';

/** A WHATWG fetch: the browser's or Node's (18 and later). SSE needs a streaming `response.body`. */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

export interface SseOptions {
  /** Endpoints in one stream (16, the bridge's `http.maxEndpointsPerStream`); a larger group opens several streams. */
  maxEndpointsPerStream?: number;
  /** The longest line (and event data) read, in characters (4 Mi); longer abandons the stream (`sse_line_too_long`). */
  maxLineLength?: number;
}

export interface SluiceBridgeOptions {
  token: TokenSource;
  reconnect?: Partial<ReconnectOptions>;
  /** Default: `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructor;
  /**
   * The transports to try, in order (default `['websocket', 'sse']`; `['sse']` forces SSE). One the runtime lacks
   * (no WebSocket, no fetch) is skipped at once.
   */
  transports?: readonly Transport[];
  /** WebSocket attempts ending before `connected`, in a row, after which the next transport is used (2). */
  fallbackAfter?: number;
  /** The same once a WebSocket session has worked in this client's life (10; `Infinity`: never). */
  fallbackAfterConnected?: number;
  /** Default: `globalThis.fetch`. */
  fetch?: FetchFunction;
  sse?: SseOptions;
}

/** Where a published record landed in Kafka. */
export interface PublishAck {
  endpoint: string;
  epoch: string;
  seq: number;
}

export interface PublishOptions {
  /** `json` sends a string as a JSON string rather than as text. */
  format?: 'json' | 'text';
}

/** Objects, arrays, numbers and booleans go as JSON, strings as text, bytes as bytes, null as a tombstone. */
export type PublishPayload = JsonValue | Uint8Array | ArrayBuffer;

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed';

/**
 * A connection to a bridge that survives disconnects: it reconnects with backoff and jitter, logs in with a fresh
 * token from the provider, and resubscribes from the last positions so that no message is missed or delivered twice.
 */
export class SluiceBridge {
  /** @param url ws:// or wss:// URL of the bridge, path included (e.g. ws://host:8080/ws) */
  constructor(url: string, options: SluiceBridgeOptions);
  readonly url: string;
  readonly state: ConnectionState;
  /** The last `connected` message, or null before the first. */
  readonly session: ConnectedMessage | null;
  readonly stats: { readonly connects: number; readonly duplicatesDropped: number };
  readonly subscriptions: ReadonlyMap<string, Subscription>;
  /** The transport in use (or being tried): it changes once, when the client falls back. */
  readonly transport: Transport;

  /** Registers a listener; returns a function that removes it. */
  on<E extends keyof BridgeEvents>(event: E, listener: (value: BridgeEvents[E]) => void): () => void;

  /**
   * Opens the connection; resolves the first time the server accepts the token, retrying with backoff meanwhile.
   * Rejects only when retrying cannot help (a fixed token refused with 4001/4002, or 1009).
   */
  connect(): Promise<ConnectedMessage>;

  /**
   * Subscribes to an exact endpoint or a prefix ending in `/*`; may be called before `connect()` resolves. `ready`
   * rejects with the server's BridgeError for refusals that retrying cannot fix (`forbidden`, `invalid_filter`,
   * `filter_too_large`, `too_many_groups`...); `busy` and `rate_limited` are retried. Throws a TypeError when `filter`
   * or `fields` is not JSON at all.
   */
  subscribe(endpoint: string, callback: (message: BridgeMessage) => void, options?: SubscribeOptions): Subscription;

  /** Stops a subscription; its positions are forgotten. */
  unsubscribe(endpoint: string): Promise<void>;

  /**
   * Resolves once Kafka has the record (acks=all); rejects with a BridgeError carrying the server's code
   * (`invalid_payload` when the topic has a record format the payload does not fit: nothing was published).
   */
  publish(endpoint: string, payload: PublishPayload, options?: PublishOptions): Promise<PublishAck>;

  /** Closes without reconnecting; subscriptions and positions are kept for a later `connect()`. */
  close(): void;
}
