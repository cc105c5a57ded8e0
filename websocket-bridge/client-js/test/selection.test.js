// The client's side of filters, field lists and decoded values (docs/bridge-client-js.md), against a scripted
// WebSocket: what it sends on subscribe and on every resubscribe, which refusals reject `ready`, how gaps of
// undecodable records are routed, and JSON payloads that are not objects. The real bridge: BrowserClientTest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError, SluiceBridge } from '../sluice-bridge.js';

/** A WebSocket the test plays the server of: `sent` holds the parsed requests, `serve` sends a message. */
class ScriptedSocket {
  static all = [];

  constructor(url) {
    this.url = url;
    this.sent = [];
    ScriptedSocket.all.push(this);
    queueMicrotask(() => this.onopen?.());
  }

  send(text) {
    const request = JSON.parse(text);
    this.sent.push(request);
    if (request.type === 'connect') {
      this.serve({ type: 'connected', id: request.id, node: 'n', subject: 's' });
    }
  }

  serve(message) {
    queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(message) }));
  }

  close() {}

  /** The server side closes the connection, as a node going away does. */
  drop() {
    this.onclose?.({ code: 1001, reason: 'going away' });
  }

  subscribes() {
    return this.sent.filter((r) => r.type === 'subscribe');
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

async function connected() {
  ScriptedSocket.all = [];
  const bridge = new SluiceBridge('ws://bridge/ws', { token: () => 't', WebSocket: ScriptedSocket,
    reconnect: { initialDelay: 1, maxDelay: 1 } });
  await bridge.connect();
  return { bridge, socket: () => ScriptedSocket.all[ScriptedSocket.all.length - 1] };
}

const FILTER = { all: [{ eq: ['/value/side', 'buy'] }, { in: ['/headers/region', ['eu', 'uk']] }] };
const FIELDS = ['/price', '/quote/bid'];

test('filter and fields go with the subscribe and again, unchanged, with the recovering resubscribe', async () => {
  const { bridge, socket } = await connected();
  const options = { filter: structuredClone(FILTER), fields: [...FIELDS], delta: true };
  const subscription = bridge.subscribe('/orders/*', () => {}, options);
  await settle();
  const [first] = socket().subscribes();
  assert.deepEqual(first.filter, FILTER);
  assert.deepEqual(first.fields, FIELDS);
  socket().serve({ type: 'subscribed', id: first.id, endpoint: '/orders/*', positions: [{ epoch: 'e-0', seq: 41 }] });
  await subscription.ready;

  // The caller's objects change after subscribing: the subscription's selection does not.
  options.filter.all.pop();
  options.fields.push('/secret');
  socket().drop();
  await settle();
  const [again] = socket().subscribes();
  assert.notEqual(socket(), ScriptedSocket.all[0]);
  assert.deepEqual(again.filter, FILTER);
  assert.deepEqual(again.fields, FIELDS);
  assert.equal(again.delta, true);
  assert.deepEqual(again.recover, [{ epoch: 'e-0', seq: 41 }]);
  assert.deepEqual(subscription.filter, FILTER);
  assert.deepEqual(subscription.fields, FIELDS);
  bridge.close();
});

test('a subscription without a selection sends neither member', async () => {
  const { bridge, socket } = await connected();
  bridge.subscribe('/orders/*', () => {});
  await settle();
  const [request] = socket().subscribes();
  assert.equal('filter' in request, false);
  assert.equal('fields' in request, false);
  bridge.close();
});

for (const code of ['invalid_filter', 'filter_too_large', 'too_many_groups']) {
  test(`${code} rejects ready with the server's BridgeError and is not sent again`, async () => {
    const { bridge, socket } = await connected();
    const errors = [];
    bridge.on('error', (e) => errors.push(e));
    const subscription = bridge.subscribe('/orders/*', () => {}, { filter: { eq: ['price', 1] } });
    await settle();
    const [request] = socket().subscribes();
    socket().serve({ type: 'error', id: request.id, code, message: 'filter.eq[0]: not a JSON Pointer' });
    await assert.rejects(subscription.ready, (e) => e instanceof BridgeError && e.code === code
      && e.message === 'filter.eq[0]: not a JSON Pointer' && e.endpoint === '/orders/*');
    assert.equal(subscription.active, false);
    assert.equal(bridge.subscriptions.has('/orders/*'), false);
    socket().drop();
    await settle();
    assert.equal(socket().subscribes().length, 0, 'a reconnect does not send the refused subscription again');
    assert.deepEqual(errors.map((e) => e.code), [code]);
    bridge.close();
  });
}

test('a filter that is not JSON at all is a TypeError at subscribe, and nothing is subscribed', async () => {
  const { bridge } = await connected();
  assert.throws(() => bridge.subscribe('/a', () => {}, { filter: () => 1 }), TypeError);
  assert.equal(bridge.subscriptions.size, 0);
  bridge.close();
});

test('an undecodable gap on an endpoint under a prefix reaches the prefix subscription and moves its position', async () => {
  const { bridge, socket } = await connected();
  const gaps = [];
  const events = [];
  bridge.on('gap', (g) => events.push(g));
  const subscription = bridge.subscribe('/trades/*', () => {}, { onGap: (g) => gaps.push(g) });
  await settle();
  const [request] = socket().subscribes();
  socket().serve({ type: 'subscribed', id: request.id, endpoint: '/trades/*', positions: [{ epoch: 'e-0', seq: 9 }] });
  await subscription.ready;
  const gap = { type: 'gap', endpoint: '/trades/t2', epoch: 'e-0', fromSeq: 11, toSeq: 11, reason: 'undecodable' };
  socket().serve(gap);
  await settle();
  assert.deepEqual(gaps, [gap]);
  assert.equal(subscription.positions.get('e-0'), 11);
  // The same notice again (it can only be a repeat): not announced twice.
  socket().serve(gap);
  await settle();
  assert.equal(gaps.length, 1);
  assert.equal(events.length, 1);
  socket().drop();
  await settle();
  assert.deepEqual(socket().subscribes()[0].recover, [{ epoch: 'e-0', seq: 11 }]);
  bridge.close();
});

test('a recovery gap names the prefix itself and still reaches it', async () => {
  const { bridge, socket } = await connected();
  const gaps = [];
  const subscription = bridge.subscribe('/trades/*', () => {}, { onGap: (g) => gaps.push(g) });
  await settle();
  socket().serve({ type: 'subscribed', id: socket().subscribes()[0].id, endpoint: '/trades/*', positions: [] });
  await subscription.ready;
  socket().serve({ type: 'gap', endpoint: '/trades/*', epoch: 'e-0', fromSeq: 1, toSeq: 5, reason: 'retention' });
  await settle();
  assert.equal(gaps.length, 1);
  bridge.close();
});

test('json payloads that are not objects (decoded values) are delivered as they are, also on delta subscriptions', async () => {
  const { bridge, socket } = await connected();
  const got = [];
  const errors = [];
  bridge.on('error', (e) => errors.push(e));
  const subscription = bridge.subscribe('/names/*', (m) => got.push(m), { delta: true });
  await settle();
  socket().serve({ type: 'subscribed', id: socket().subscribes()[0].id, endpoint: '/names/*', positions: [] });
  await subscription.ready;
  const message = (seq, payload) => ({ type: 'message', endpoint: '/names/1', epoch: 'e-0', seq, timestamp: 0, format: 'json', payload });
  socket().serve(message(1, 'Ada'));
  socket().serve(message(2, 42));
  socket().serve(message(3, null));
  socket().serve(message(4, { name: 'Ada', n: 1 }));
  // A delta only ever follows an object or array; it patches the latest one.
  socket().serve({ type: 'delta', endpoint: '/names/1', epoch: 'e-0', seq: 5, timestamp: 0, base: 4,
    patch: [{ op: 'replace', path: '/n', value: 2 }] });
  socket().serve(message(6, false));
  await settle();
  assert.deepEqual(got.map((m) => [m.format, m.payload, m.delta]), [
    ['json', 'Ada', false], ['json', 42, false], ['json', null, false], ['json', { name: 'Ada', n: 1 }, false],
    ['json', { name: 'Ada', n: 2 }, true], ['json', false, false]]);
  assert.deepEqual(errors, []);
  bridge.close();
});
