// The client on its SSE transport, against a scripted fetch() that plays the bridge's HTTP side (docs/bridge-http.md):
// when it falls back, the streams it opens (one per filter/fields/delta group, split at maxEndpointsPerStream), the
// positions it resumes from (the documented id format, decoded here independently), HTTP publish and its refusals.
// The real bridge: SseFallbackBrowserTest (Chromium) in the Maven build.
import { test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError, SluiceBridge } from '../sluice-bridge.js';

const encoder = new TextEncoder();
/** Every test bounded: a client that never connects fails its test instead of hanging the run. */
const test = (name, fn) => nodeTest(name, { timeout: 10000 }, fn);

/** A fetch the test answers: every call is a request with its URL, headers, body, and for streams a way to send. */
class ScriptedBridge {
  constructor() {
    this.requests = [];
    this.publishAnswer = (req) => json(200, { type: 'ack', endpoint: req.url.searchParams.get('endpoint'), epoch: 'E-0', seq: 7 });
    this.streamAnswer = null;
    this.fetch = async (url, init = {}) => {
      const req = { url: new URL(url), init, headers: init.headers || {}, aborted: false };
      this.requests.push(req);
      if (req.url.pathname.endsWith('/publish')) {
        return this.publishAnswer(req);
      }
      if (this.streamAnswer) {
        const answer = this.streamAnswer(req);
        if (answer) {
          return answer;
        }
      }
      const body = new ReadableStream({ start: (c) => { req.controller = c; } });
      init.signal?.addEventListener('abort', () => {
        req.aborted = true;
        try {
          req.controller.error(new DOMException('aborted', 'AbortError'));
        } catch (e) {
          // already closed
        }
      });
      req.send = (text) => req.controller.enqueue(encoder.encode(text));
      req.event = (m, id) => req.send(`${id ? `id: ${id}\n` : ''}${m.type === 'message' ? '' : `event: ${m.type}\n`}data: ${JSON.stringify(m)}\n\n`);
      req.end = () => req.controller.close();
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
    };
  }

  streams() {
    return this.requests.filter((r) => r.url.pathname.endsWith('/sse'));
  }

  open() {
    return this.streams().filter((r) => r.controller && !r.aborted);
  }
}

function json(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The id format of docs/bridge-http.md, decoded from scratch: one Map (epoch -> seq) per endpoint. */
function decodeId(id) {
  assert.ok(id.startsWith('1.'), id);
  assert.match(id.slice(2), /^[A-Za-z0-9_-]*$/);
  const bytes = Buffer.from(id.slice(2), 'base64url');
  let at = 0;
  const varint = () => {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[at++];
      n += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 128) {
        return n;
      }
    }
  };
  const groups = [];
  while (at < bytes.length) {
    const positions = new Map();
    for (let count = varint(); count > 0; count--) {
      const length = varint();
      const epoch = bytes.subarray(at, at + length).toString('utf8');
      at += length;
      positions.set(epoch, varint() - 1);
    }
    groups.push(positions);
  }
  return groups;
}

async function until(condition, what) {
  for (let i = 0; i < 500 && !condition(); i++) {
    await new Promise((r) => setTimeout(r, 2));
  }
  assert.ok(condition(), `timed out waiting for ${what}`);
}

function sseClient(server, options = {}) {
  return new SluiceBridge('ws://bridge.test/ws', {
    token: 'the-token', transports: ['sse'], fetch: server.fetch, reconnect: { initialDelay: 1, maxDelay: 5, jitter: 0 }, ...options,
  });
}

class FailingSocket {
  static made = 0;

  constructor() {
    FailingSocket.made++;
    queueMicrotask(() => this.onclose?.({ code: 1006, reason: '' })); // the upgrade fails: never open
  }

  close() {}
}

test('without WebSocket in the runtime the client uses SSE at once; an unknown transport is a TypeError', () => {
  const saved = globalThis.WebSocket;
  globalThis.WebSocket = undefined;
  try {
    const bridge = new SluiceBridge('ws://bridge.test/ws', { token: 't', fetch: new ScriptedBridge().fetch });
    assert.equal(bridge.transport, 'sse');
    assert.throws(() => new SluiceBridge('ws://x/ws', { token: 't', transports: ['websocket'] }), TypeError);
  } finally {
    globalThis.WebSocket = saved;
  }
  assert.throws(() => new SluiceBridge('ws://x/ws', { token: 't', transports: ['sse', 'carrier-pigeon'] }), TypeError);
  assert.throws(() => new SluiceBridge('ws://x/ws', { token: 't', transports: [] }), TypeError);
  assert.throws(() => new SluiceBridge('ws://x/ws', { token: 't', transports: ['sse', 'sse'] }), TypeError);
});

test('after fallbackAfter failed upgrades in a row the client falls back to SSE, and stays there', async () => {
  const server = new ScriptedBridge();
  FailingSocket.made = 0;
  const bridge = new SluiceBridge('wss://bridge.test/ws', {
    token: 't', WebSocket: FailingSocket, fetch: server.fetch, reconnect: { initialDelay: 1, maxDelay: 5, jitter: 0 },
  });
  assert.equal(bridge.transport, 'websocket');
  let connected;
  try {
    connected = await Promise.race([bridge.connect(), new Promise((r) => setTimeout(r, 3000))]);
  } finally {
    if (!connected) {
      bridge.close(); // never fell back: fail, without leaving a client reconnecting forever
    }
  }
  assert.ok(connected, 'connected (over SSE)');
  assert.equal(FailingSocket.made, 2, 'two upgrades tried (fallbackAfter 2), no more');
  assert.equal(bridge.transport, 'sse');
  assert.equal(connected.transport, 'sse');
  bridge.subscribe('/t/a', () => {});
  await until(() => server.streams().length === 1, 'a stream');
  assert.equal(server.streams()[0].url.origin, 'https://bridge.test', 'wss becomes https');
  server.streams()[0].end(); // dropped: reconnects, still on SSE
  await until(() => server.streams().length === 2, 'the stream reopened');
  assert.equal(FailingSocket.made, 2);
  bridge.close();
});

test('once a WebSocket session worked, fallbackAfterConnected failures in a row are needed', async () => {
  const server = new ScriptedBridge();
  let made = 0;
  class OnceGoodSocket {
    constructor() {
      made++;
      this.good = made === 1;
      OnceGoodSocket.last = this;
      queueMicrotask(() => (this.good ? this.onopen?.() : this.onclose?.({ code: 1006, reason: '' })));
    }

    send(text) {
      const request = JSON.parse(text);
      queueMicrotask(() => this.onmessage?.({ data: JSON.stringify({ type: 'connected', id: request.id, node: 'n', subject: 's', expiresAt: 0 }) }));
    }

    close() {}
  }
  const bridge = new SluiceBridge('ws://bridge.test/ws', {
    token: 't', WebSocket: OnceGoodSocket, fetch: server.fetch, fallbackAfterConnected: 4,
    reconnect: { initialDelay: 1, maxDelay: 5, jitter: 0 },
  });
  try {
    await bridge.connect();
    assert.equal(bridge.transport, 'websocket');
    OnceGoodSocket.last.onclose({ code: 1001, reason: 'going away' });
    await until(() => bridge.transport === 'sse', 'the fallback');
    assert.equal(made, 1 + 4, 'the working session, then four failed upgrades');
  } finally {
    bridge.close();
  }
});

test('one stream per (filter, fields, delta) group; subscribe and unsubscribe reopen the group with the positions held', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server);
  const got = [];
  bridge.subscribe('/t/a', (m) => got.push(['a', m.seq]));
  bridge.subscribe('/t/b/*', (m) => got.push(['b', m.endpoint, m.seq]));
  bridge.subscribe('/t/c', (m) => got.push(['c', m.payload]), { fields: ['/x', '/y'], delta: true, filter: { eq: ['/value/k', 1] } });
  const connecting = bridge.connect();
  await until(() => server.streams().length === 2, 'two streams');
  const [plain, selected] = server.streams();
  assert.deepEqual(plain.url.searchParams.getAll('endpoint'), ['/t/a', '/t/b/*']);
  assert.deepEqual([...plain.url.searchParams.keys()].sort(), ['endpoint', 'endpoint']);
  assert.equal(plain.headers.Authorization, 'Bearer the-token');
  assert.equal(plain.init.credentials, 'omit');
  assert.deepEqual(selected.url.searchParams.getAll('endpoint'), ['/t/c']);
  assert.equal(selected.url.searchParams.get('fields'), '/x,/y');
  assert.equal(selected.url.searchParams.get('delta'), 'true');
  assert.deepEqual(JSON.parse(selected.url.searchParams.get('filter')), { eq: ['/value/k', 1] });
  assert.equal(plain.url.pathname, '/ws/sse');

  plain.send('retry: 1\n\n');
  plain.event({ type: 'connected', node: 'node-1', subject: 'alice', expiresAt: 0 });
  assert.equal((await connecting).node, 'node-1');
  plain.event({ type: 'subscribed', endpoint: '/t/a', positions: [{ epoch: 'E-0', seq: 4 }, { epoch: 'E-1', seq: -1 }] });
  plain.event({ type: 'subscribed', endpoint: '/t/b/*', positions: [{ epoch: 'E-0', seq: 4 }] });
  plain.event({ type: 'message', endpoint: '/t/a', epoch: 'E-0', seq: 5, format: 'text', payload: 'five' }, '1.x');
  plain.event({ type: 'message', endpoint: '/t/b/q', epoch: 'E-0', seq: 6, format: 'text', payload: 'six' }, '1.y');
  await until(() => got.length === 2, 'the messages of the plain stream'); // streams are independent: no order between them
  selected.event({ type: 'connected', node: 'node-1', subject: 'alice', expiresAt: 0 });
  selected.event({ type: 'subscribed', endpoint: '/t/c', positions: [] });
  selected.event({ type: 'message', endpoint: '/t/c', epoch: 'E-0', seq: 8, format: 'json', payload: { x: 1, y: 2 } }, '1.z');
  selected.event({ type: 'delta', endpoint: '/t/c', epoch: 'E-0', seq: 9, base: 8, patch: [{ op: 'replace', path: '/x', value: 3 }] }, '1.w');
  await until(() => got.length === 4, 'four messages');
  assert.deepEqual(got, [['a', 5], ['b', '/t/b/q', 6], ['c', { x: 1, y: 2 }], ['c', { x: 3, y: 2 }]]);

  bridge.subscribe('/t/d', () => {});
  await until(() => server.streams().length === 3, 'the plain group reopened');
  assert.ok(plain.aborted, 'the old stream is closed');
  assert.ok(!selected.aborted, 'the other group is left alone');
  const reopened = server.streams()[2];
  assert.deepEqual(reopened.url.searchParams.getAll('endpoint'), ['/t/a', '/t/b/*', '/t/d']);
  assert.deepEqual(decodeId(reopened.url.searchParams.get('lastEventId')),
    [new Map([['E-0', 5], ['E-1', -1]]), new Map([['E-0', 6]]), new Map()]);
  assert.equal(reopened.url.searchParams.get('snapshot'), null);
  // The new stream starts again from those positions; a repeat at or below them is not delivered twice.
  reopened.event({ type: 'message', endpoint: '/t/a', epoch: 'E-0', seq: 5, format: 'text', payload: 'five' }, '1.x');
  reopened.event({ type: 'message', endpoint: '/t/a', epoch: 'E-1', seq: 0, format: 'text', payload: 'first of E-1' }, '1.v');
  await until(() => got.length === 5, 'the new message');
  assert.deepEqual(got[4], ['a', 0]);
  assert.equal(bridge.stats.duplicatesDropped, 1);

  await bridge.unsubscribe('/t/b/*');
  await until(() => server.streams().length === 4, 'reopened without /t/b/*');
  assert.deepEqual(server.streams()[3].url.searchParams.getAll('endpoint'), ['/t/a', '/t/d']);
  assert.deepEqual(decodeId(server.streams()[3].url.searchParams.get('lastEventId')), [new Map([['E-0', 5], ['E-1', 0]]), new Map()]);
  await bridge.unsubscribe('/t/c');
  await until(() => selected.aborted, 'the emptied group closed');
  assert.equal(server.open().length, 1);
  bridge.close();
  assert.equal(server.open().length, 0);
});

test('a group larger than maxEndpointsPerStream is split into several streams', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server, { sse: { maxEndpointsPerStream: 2 } });
  for (const e of ['/t/1', '/t/2', '/t/3', '/t/4', '/t/5']) {
    bridge.subscribe(e, () => {});
  }
  bridge.connect();
  await until(() => server.streams().length === 3, 'three streams');
  assert.deepEqual(server.streams().map((r) => r.url.searchParams.getAll('endpoint')), [['/t/1', '/t/2'], ['/t/3', '/t/4'], ['/t/5']]);
  bridge.close();
});

test('a dropped stream reconnects (after retry:) and resumes from the positions held; the disconnect is reported', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server);
  const events = [];
  bridge.on('disconnected', (d) => events.push(d));
  const got = [];
  bridge.subscribe('/t/a', (m) => got.push(m.seq));
  bridge.connect();
  await until(() => server.streams().length === 1, 'a stream');
  const first = server.streams()[0];
  first.send('retry: 3\n\n');
  first.event({ type: 'connected', node: 'n1', subject: 's', expiresAt: 0 });
  first.event({ type: 'subscribed', endpoint: '/t/a', positions: [{ epoch: 'E-0', seq: 1 }] });
  first.event({ type: 'message', endpoint: '/t/a', epoch: 'E-0', seq: 2, format: 'none', payload: null }, '1.a');
  first.event({ type: 'close', code: 1001, reason: 'node shutting down' });
  first.end();
  await until(() => server.streams().length === 2, 'the reconnect');
  assert.deepEqual(events, [{ code: 1001, reason: 'node shutting down' }]);
  assert.deepEqual(decodeId(server.streams()[1].url.searchParams.get('lastEventId')), [new Map([['E-0', 2]])]);
  assert.deepEqual(got, [2]);
  assert.equal(bridge.stats.connects, 1);
  server.streams()[1].event({ type: 'connected', node: 'n2', subject: 's', expiresAt: 0 });
  await until(() => bridge.stats.connects === 2, 'connected again');
  assert.equal(bridge.session.node, 'n2');
  bridge.close();
});

test('an endless line from the server abandons the stream with an error and reconnects', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server, { sse: { maxLineLength: 100 } });
  const errors = [];
  bridge.on('error', (e) => errors.push(e.code));
  bridge.subscribe('/t/a', () => {});
  bridge.connect();
  await until(() => server.streams().length === 1, 'a stream');
  server.streams()[0].event({ type: 'connected', node: 'n1', subject: 's', expiresAt: 0 });
  for (let i = 0; i < 10; i++) {
    server.streams()[0].send('data: ' + 'x'.repeat(50));
  }
  await until(() => server.streams().length === 2, 'the reconnect');
  assert.ok(server.streams()[0].aborted || true);
  assert.deepEqual(errors, ['sse_line_too_long']);
  bridge.close();
});

test('a stream refused with 403 rejects the new subscription and reopens the rest; 401 with a fixed token is fatal', async () => {
  const server = new ScriptedBridge();
  server.streamAnswer = (req) => (req.url.searchParams.getAll('endpoint').includes('/secret')
    ? json(403, { type: 'error', code: 'forbidden', message: 'not allowed to read /secret' }) : null);
  const bridge = sseClient(server);
  bridge.subscribe('/t/a', () => {});
  bridge.connect();
  await until(() => server.streams().length === 1, 'a stream');
  server.streams()[0].event({ type: 'connected', node: 'n1', subject: 's', expiresAt: 0 });
  server.streams()[0].event({ type: 'subscribed', endpoint: '/t/a', positions: [] });
  const secret = bridge.subscribe('/secret', () => {});
  await assert.rejects(secret.ready, (e) => e instanceof BridgeError && e.code === 'forbidden' && e.endpoint === '/secret');
  assert.equal(secret.active, false);
  await until(() => server.open().length === 1 && server.open()[0].url.searchParams.getAll('endpoint').join() === '/t/a', 'the rest reopened');
  assert.deepEqual(server.streams().map((r) => r.url.searchParams.getAll('endpoint').join()), ['/t/a', '/t/a,/secret', '/t/a']);
  bridge.close();

  const refusing = new ScriptedBridge();
  refusing.streamAnswer = () => json(401, { type: 'error', code: 'invalid_token', message: 'token expired' }, { 'WWW-Authenticate': 'Bearer' });
  const fixed = sseClient(refusing);
  fixed.subscribe('/t/a', () => {});
  await assert.rejects(fixed.connect(), (e) => e.code === 'closed');
  assert.equal(fixed.state, 'closed');
});

test('publish over HTTP: the Content-Type by payload kind, the same ack, the same BridgeError', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server);
  const connected = await bridge.connect();
  assert.equal(connected.transport, 'sse');
  const acks = [];
  acks.push(await bridge.publish('/t/room 1', { text: 'hi' }));
  await bridge.publish('/t/x', 'h\u00e9llo');
  await bridge.publish('/t/x', 'a JSON string', { format: 'json' });
  await bridge.publish('/t/x', new Uint8Array([0, 128, 255]));
  await bridge.publish('/t/x', new Uint8Array([1, 2]).buffer);
  await bridge.publish('/t/x', null);
  await bridge.publish('/t/x', 42);
  const posts = server.requests.filter((r) => r.init.method === 'POST');
  assert.deepEqual(acks, [{ endpoint: '/t/room 1', epoch: 'E-0', seq: 7 }]);
  assert.equal(posts[0].url.pathname, '/ws/publish');
  assert.equal(posts[0].url.searchParams.get('endpoint'), '/t/room 1');
  assert.deepEqual(posts.map((p) => p.headers['Content-Type']), ['application/json', 'text/plain; charset=utf-8', 'application/json',
    'application/octet-stream', 'application/octet-stream', undefined, 'application/json']);
  assert.deepEqual(posts.map((p) => (p.init.body instanceof Uint8Array ? [...p.init.body] : p.init.body)),
    ['{"text":"hi"}', 'h\u00e9llo', '"a JSON string"', [0, 128, 255], [1, 2], undefined, '42']);
  assert.ok(posts.every((p) => p.headers.Authorization === 'Bearer the-token'));

  server.publishAnswer = () => json(403, { type: 'error', code: 'forbidden', message: 'not allowed to publish to /t/x' });
  await assert.rejects(bridge.publish('/t/x', 'no'), (e) => e instanceof BridgeError && e.code === 'forbidden' && /not allowed/.test(e.message));
  server.publishAnswer = () => json(429, { type: 'error', code: 'rate_limited', message: 'slow down' }, { 'Retry-After': '2' });
  await assert.rejects(bridge.publish('/t/x', 'no'), (e) => e.code === 'rate_limited' && e.retryAfterMs === 2000);
  server.publishAnswer = () => new Response('<html>bad gateway</html>', { status: 502 });
  await assert.rejects(bridge.publish('/t/x', 'no'), (e) => e.code === 'http_502');
  server.publishAnswer = () => Promise.reject(new TypeError('network down'));
  await assert.rejects(bridge.publish('/t/x', 'no'), (e) => e.code === 'disconnected');
  bridge.close();
  await assert.rejects(bridge.publish('/t/x', 'no'), (e) => e.code === 'not_connected');
});

test('overlapping subscriptions in different groups: each stream delivers to its own subscriptions only', async () => {
  const server = new ScriptedBridge();
  const bridge = sseClient(server);
  const wide = [];
  const narrow = [];
  bridge.subscribe('/t/*', (m) => wide.push(m.seq));
  bridge.subscribe('/t/a', (m) => narrow.push(m.payload), { fields: ['/x'] });
  bridge.connect();
  await until(() => server.streams().length === 2, 'two streams');
  const [plain, projected] = server.streams();
  plain.event({ type: 'connected', node: 'n', subject: 's', expiresAt: 0 });
  plain.event({ type: 'message', endpoint: '/t/a', epoch: 'E-0', seq: 3, format: 'json', payload: { x: 1, y: 2 } }, '1.a');
  projected.event({ type: 'message', endpoint: '/t/a', epoch: 'E-0', seq: 3, format: 'json', payload: { x: 1 } }, '1.b');
  await until(() => wide.length === 1 && narrow.length === 1, 'one delivery each');
  assert.deepEqual(narrow, [{ x: 1 }], 'the projected stream feeds the projected subscription');
  assert.equal(bridge.stats.duplicatesDropped, 0);
  bridge.close();
});

test('expiring on SSE: a new token from the provider, every stream reopened with the new token and its positions', async () => {
  const server = new ScriptedBridge();
  let calls = 0;
  const bridge = sseClient(server, { token: async () => `token-${++calls}`, sse: { maxEndpointsPerStream: 1 } });
  const refreshed = [];
  bridge.on('refreshed', (r) => refreshed.push(r));
  bridge.subscribe('/t/a', () => {});
  bridge.subscribe('/t/b', () => {});
  bridge.connect();
  await until(() => server.streams().length === 2, 'two streams');
  const [a, b] = server.streams();
  a.event({ type: 'connected', node: 'n', subject: 's', expiresAt: 1 });
  a.event({ type: 'subscribed', endpoint: '/t/a', positions: [{ epoch: 'E-0', seq: 9 }] });
  a.event({ type: 'expiring', expiresAt: 1 });
  b.event({ type: 'expiring', expiresAt: 1 });
  await until(() => server.streams().length === 4, 'both reopened');
  assert.ok(calls >= 2, 'the first connect, then the refresh');
  const reopened = server.streams().slice(2);
  assert.ok(reopened.every((r) => r.headers.Authorization === 'Bearer token-2'));
  assert.deepEqual(decodeId(reopened[0].url.searchParams.get('lastEventId')), [new Map([['E-0', 9]])]);
  assert.ok(a.aborted && b.aborted);
  reopened[0].event({ type: 'connected', node: 'n', subject: 's', expiresAt: 2 });
  await until(() => refreshed.length === 1, 'refreshed');
  assert.deepEqual(refreshed, [{ type: 'refreshed', expiresAt: 2 }]);
  assert.equal(bridge.stats.connects, 1, 'a refresh is not a reconnect');
  bridge.close();
});
