// The package's entry point (sluice-bridge.js, package.json "main" and "exports") after the client was split into
// modules: the same four exports as before, and the very objects of the modules they come from.
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('the entry point re-exports the very objects of the modules it is made of', async () => {
  const entry = await import('../sluice-bridge.js');
  const protocol = await import('../bridge-protocol.js');
  const parser = await import('../sse-parser.js');
  assert.equal(entry.BridgeError, protocol.BridgeError);
  assert.equal(entry.decodePayload, protocol.decodePayload);
  assert.equal(entry.SseParser, parser.SseParser);
  assert.deepEqual(Object.keys(entry).sort(), ['BridgeError', 'SluiceBridge', 'SseParser', 'decodePayload']);
});
