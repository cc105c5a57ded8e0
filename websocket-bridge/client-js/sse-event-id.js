// The SSE stream id the client sends as lastEventId when it reopens a stream: the positions it holds, encoded as the
// bridge encodes them (docs/bridge-http.md "Ids and Last-Event-ID"). In: one epoch -> seq map per endpoint of the
// stream; out: the id. Its own module because it is a wire format with its own specification.

import { encodeBase64 } from './bridge-protocol.js';

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
export function encodeEventId(positionMaps) {
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
