// What the client's modules share about the bridge's protocol (docs/bridge-protocol.md): the error every refusal
// becomes, the error codes worth a retry, and the payload formats (decoded for subscribers, base64 for bytes sent).
// In: the server's codes and payloads; out: BridgeError, decodePayload, encodeBase64. A module of its own because both
// transports, the subscriptions and the SSE parser use it, and none of them should import another for it.

/** Error codes that refuse a request for now, not for good: the same request is sent again after a backoff. */
export const RETRYABLE_ERROR_CODES = new Set(['busy', 'rate_limited']);

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

export function encodeBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
