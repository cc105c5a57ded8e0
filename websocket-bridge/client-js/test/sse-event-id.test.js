// The SSE stream id the client sends as lastEventId (sse-event-id.js), byte for byte as docs/bridge-http.md "Ids and
// Last-Event-ID" specifies it (the bridge's EventIds decodes it): per endpoint a varint count, then per position the
// epoch's UTF-8 length and bytes and seq + 1; base64url without padding after `1.`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeEventId } from '../sse-event-id.js';

const bytesOf = (id) => {
  assert.ok(id.startsWith('1.'), id);
  assert.match(id.slice(2), /^[A-Za-z0-9_-]*$/, 'base64url, no padding');
  return [...Buffer.from(id.slice(2), 'base64url')];
};

test('one endpoint with one position: count, epoch length and bytes, seq + 1', () => {
  assert.deepEqual(bytesOf(encodeEventId([new Map([['E-0', 4]])])), [1, 3, 0x45, 0x2d, 0x30, 5]);
});

test('endpoints in order, an endpoint without positions as a zero count', () => {
  assert.deepEqual(bytesOf(encodeEventId([new Map(), new Map([['a', 0], ['b', 1]])])), [0, 2, 1, 0x61, 1, 1, 0x62, 2]);
});

test('seq beyond 32 bits is a multi-byte varint (arithmetic, not bit operations); UTF-8 epochs', () => {
  const seq = 2 ** 40; // + 1 = 0x10000000001
  assert.deepEqual(bytesOf(encodeEventId([new Map([['é', seq]])])),
    [1, 2, 0xc3, 0xa9, 0x81, 0x80, 0x80, 0x80, 0x80, 0x20]);
});
