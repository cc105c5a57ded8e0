// Types of bridge-protocol.js: the errors the client reports and the payload formats. Users import them from the
// package's entry point (sluice-bridge.d.ts re-exports them).

import type { JsonValue } from './json-patch.js';

/**
 * Codes of the errors the client reports. The server's codes are listed in docs/bridge-protocol.md; a newer server
 * may send others, so any string is possible.
 */
export type BridgeErrorCode =
  | 'forbidden' | 'unknown_endpoint' | 'already_subscribed' | 'too_many_subscriptions' | 'malformed' | 'rate_limited'
  | 'busy' | 'publish_failed' | 'not_connected' | 'disconnected' | 'closed' | 'delta_base_missing' | 'delta_failed'
  | 'recovery_failed'
  /** subscribe: the `filter` or `fields` is not valid; the message names the spot. Not retried. */
  | 'invalid_filter'
  /** subscribe: the `filter` or `fields` is over one of the node's filter limits. Not retried. */
  | 'filter_too_large'
  /** subscribe: the endpoint has as many distinct (filter, fields) selections on this node as it may. Not retried. */
  | 'too_many_groups'
  /** publish: the topic has a record format and the payload does not fit it; nothing was published. */
  | 'invalid_payload'
  /** SSE: the event stream sent a line (or an event) longer than `sse.maxLineLength`; the stream was abandoned. */
  | 'sse_line_too_long'
  /** SSE: the node refused the token of a stream (HTTP 401). */
  | 'invalid_token'
  | (string & {});

/** A request the server answered with `error`, or one that could not be sent or answered. */
export class BridgeError extends Error {
  constructor(code: BridgeErrorCode, message?: string, retryAfterMs?: number);
  readonly name: 'BridgeError';
  readonly code: BridgeErrorCode;
  /** The server's hint with `rate_limited`: a retry sooner than this many milliseconds is refused again. */
  readonly retryAfterMs?: number;
  /** Set when a subscription was refused: its endpoint. */
  endpoint?: string;
}

/** How a message's payload is carried on the wire (docs/bridge-protocol.md#messages). */
export type PayloadFormat = 'json' | 'text' | 'base64' | 'none';

/** Decodes a payload by its format: JSON as is, text as a string, base64 as bytes, `none` as null. */
export function decodePayload(format: 'json', payload: JsonValue): JsonValue;
export function decodePayload(format: 'text', payload: string): string;
export function decodePayload(format: 'base64', payload: string): Uint8Array;
export function decodePayload(format: 'none', payload: unknown): null;

/** Error codes worth the same request again after a backoff (busy, rate_limited). Internal to the package. */
export const RETRYABLE_ERROR_CODES: ReadonlySet<string>;

/** Bytes as standard base64, as a WebSocket publish carries them. Internal to the package. */
export function encodeBase64(bytes: Uint8Array): string;
