// Compiled with `tsc --strict` (tsconfig.json here), never run. Each use below must type-check, and each line after
// `@ts-expect-error` must not: a declaration that grows loose (any, a missing member, a wrong union) fails the build,
// as "Unused '@ts-expect-error' directive" when a misuse is no longer caught.
import {
  BridgeError, decodePayload, SluiceBridge, type BridgeErrorCode, type BridgeMessage, type ConnectedMessage, type Filter,
  type GapNotice, type JsonPointer, type PublishAck, type Subscription, SseParser, type SseEvent, type Transport,
} from '../../sluice-bridge.js';
import { applyPatch, JsonPatchError, jsonEqual, parsePointer, type JsonValue } from '../../json-patch.js';

export async function everyPartOfTheApi(): Promise<void> {
  const bridge = new SluiceBridge('ws://127.0.0.1:8080/ws', {
    token: async () => 'jwt',
    reconnect: { initialDelay: 100, maxDelay: 1000 },
    WebSocket: globalThis.WebSocket,
  });
  const fixed = new SluiceBridge('wss://bridge.example/ws', { token: 'jwt' });
  fixed.close();

  const connected: ConnectedMessage = await bridge.connect();
  const subject: string = connected.subject;
  const node: string = connected.node;
  const expiresAt: number = connected.expiresAt;

  const off = bridge.on('gap', (gap: GapNotice) => {
    const reason: string = gap.reason;
    const toSeq: number = gap.toSeq;
    void reason; void toSeq;
  });
  off();
  bridge.on('disconnected', ({ code, reason }) => void [code.toFixed(), reason.toUpperCase()]);
  bridge.on('error', (error) => {
    if (error instanceof BridgeError) {
      const code: string = error.code;
      const retry: number | undefined = error.retryAfterMs;
      void code; void retry;
    }
  });

  const subscription: Subscription = bridge.subscribe('/scores/live/*', (m: BridgeMessage) => {
    // The format narrows the payload.
    switch (m.format) {
      case 'json': {
        const doc: JsonValue = m.payload;
        void doc;
        break;
      }
      case 'text':
        void m.payload.toUpperCase();
        break;
      case 'base64':
        void m.payload.byteLength;
        break;
      case 'none': {
        const tombstone: null = m.payload;
        void tombstone;
        break;
      }
    }
    const seq: number = m.seq;
    const epoch: string = m.epoch;
    void [seq, epoch, m.delta, m.snapshot, m.timestamp, m.endpoint];
  }, { delta: true, snapshot: false, recover: true, onGap: (g) => void g.fromSeq, onConflated: (c) => void c.dropped });
  const same: Subscription = await subscription.ready;
  const last: number | undefined = same.positions.get('epoch');
  void last;

  // Filters and field lists: every operator, nested, and a filter built apart (annotated, or `as const`).
  const buysOver100: Filter = {
    all: [
      { eq: ['/value/side', 'buy'] }, { ne: ['/value/venue', null] }, { gt: ['/value/price', 100] },
      { le: ['/value/price', 1e6] }, { lt: ['/value/sym', 'M'] }, { ge: ['/value/qty', 1] },
      { in: ['/headers/region', ['eu', 'uk']] }, { in: ['/value/tier', [1, 2, { vip: true }]] },
      { prefix: ['/key', 'fx/'] }, { exists: '/value/quote/bid' },
      { any: [{ not: { eq: ['/value/halted', true] } }, { all: [] }] },
    ],
  };
  const fields: JsonPointer[] = ['/price', '/qty', '/quote/bid'];
  const selected = bridge.subscribe('/orders/*', (m) => {
    if (m.format === 'json') {
      // A decoded value may be any JSON value: a string, a number...
      const value: JsonValue = m.payload;
      if (typeof value === 'string' || typeof value === 'number') {
        void value;
      }
    }
  }, { filter: buysOver100, fields, delta: true });
  const sentFilter: Filter | undefined = selected.filter;
  const sentFields: readonly string[] | undefined = selected.fields;
  void [sentFilter, sentFields];
  const asConst = { eq: ['/value/side', 'sell'] } as const;
  bridge.subscribe('/orders/eu', () => {}, { filter: asConst, fields: ['/price'] as const });
  try {
    await selected.ready;
  } catch (e) {
    if (e instanceof BridgeError && (e.code === 'invalid_filter' || e.code === 'filter_too_large' || e.code === 'too_many_groups')) {
      void e.message;
    }
  }
  const refusal: BridgeErrorCode = 'invalid_payload';
  void refusal;
  const undecodable: GapNotice['reason'] = 'undecodable';
  void undecodable;
  const scalar: JsonValue = decodePayload('json', 'a decoded Avro string');
  // A json message may carry a bare string or number (a topic with a record format).
  const decoded: BridgeMessage[] = [
    { endpoint: '/names/1', epoch: 'e', seq: 1, timestamp: 0, format: 'json', payload: 'Ada', delta: false, snapshot: false },
    { endpoint: '/counts/1', epoch: 'e', seq: 2, timestamp: 0, format: 'json', payload: 42, delta: false, snapshot: false },
  ];
  void [scalar, decoded];
  await subscription.unsubscribe();
  await bridge.unsubscribe('/scores/live/a');

  const ack: PublishAck = await bridge.publish('/chat/room-1', { text: 'hi', n: [1, 2, null] });
  await bridge.publish('/chat/room-1', 'plain text');
  await bridge.publish('/chat/room-1', 'a JSON string', { format: 'json' });
  await bridge.publish('/chat/room-1', new Uint8Array([1, 2, 3]));
  await bridge.publish('/chat/room-1', new ArrayBuffer(4));
  await bridge.publish('/chat/room-1', null);
  const position: [string, number] = [ack.epoch, ack.seq];
  void position;

  const stats: number = bridge.stats.connects + bridge.stats.duplicatesDropped;
  const state: 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed' = bridge.state;
  void [subject, node, expiresAt, stats, state];

  const bytes: Uint8Array = decodePayload('base64', 'AAE=');
  const text: string = decodePayload('text', 'x');
  const nothing: null = decodePayload('none', null);
  void [bytes, text, nothing];

  const patched: JsonValue = applyPatch({ a: 1 }, [{ op: 'replace', path: '/a', value: 2 }, { op: 'move', from: '/a', path: '/b' }]);
  const tokens: string[] = parsePointer('/a~1b');
  const equal: boolean = jsonEqual(patched, { b: 2 });
  const patchError: Error = new JsonPatchError('x', 1);
  void [tokens, equal, patchError];
}

export async function misusesTheCompilerCatches(bridge: SluiceBridge): Promise<void> {
  // @ts-expect-error: the token is required
  new SluiceBridge('ws://x/ws', {});
  // @ts-expect-error: a token is a string or a function returning one
  new SluiceBridge('ws://x/ws', { token: 42 });
  // @ts-expect-error: reconnect delays are numbers
  new SluiceBridge('ws://x/ws', { token: 't', reconnect: { initialDelay: '1s' } });
  // @ts-expect-error: not an event the client emits
  bridge.on('message', () => {});
  bridge.subscribe('/a', (m) => {
    // @ts-expect-error: without narrowing on format the payload may be bytes or null
    m.payload.toUpperCase();
  });
  // @ts-expect-error: unknown subscribe option
  bridge.subscribe('/a', () => {}, { deltas: true });
  // @ts-expect-error: functions are not publishable
  await bridge.publish('/a', () => 1);
  // @ts-expect-error: undefined is not a payload (null is the tombstone)
  await bridge.publish('/a', undefined);
  // @ts-expect-error: bytes are sent as bytes; the format option is for strings
  await bridge.publish('/a', 'x', { format: 'base64' });
  const ack = await bridge.publish('/a', 1);
  // @ts-expect-error: seq is a number
  const seq: string = ack.seq;
  void seq;
  // @ts-expect-error: a JSON payload may be any JSON value, not necessarily a string
  const s: string = decodePayload('json', { a: 1 });
  void s;
  // @ts-expect-error: not an operator of the filter language
  bridge.subscribe('/a', () => {}, { filter: { equals: ['/value/a', 1] } });
  // @ts-expect-error: one operator per object (use all)
  bridge.subscribe('/a', () => {}, { filter: { eq: ['/value/a', 1], ne: ['/value/b', 2] } });
  // @ts-expect-error: in takes a list of literals
  bridge.subscribe('/a', () => {}, { filter: { in: ['/value/a', 1] } });
  // @ts-expect-error: comparisons take a pointer and a literal, not the literal alone
  bridge.subscribe('/a', () => {}, { filter: { eq: [1] } });
  // @ts-expect-error: lt/le/gt/ge compare numbers or strings only
  bridge.subscribe('/a', () => {}, { filter: { gt: ['/value/a', true] } });
  // @ts-expect-error: prefix takes text
  bridge.subscribe('/a', () => {}, { filter: { prefix: ['/key', 7] } });
  // @ts-expect-error: exists takes one pointer, not a pair
  bridge.subscribe('/a', () => {}, { filter: { exists: ['/value/a', 1] } });
  // @ts-expect-error: not takes one filter, all/any a list
  bridge.subscribe('/a', () => {}, { filter: { not: [{ exists: '/value/a' }] } });
  // @ts-expect-error: all takes a list of filters
  bridge.subscribe('/a', () => {}, { filter: { all: { exists: '/value/a' } } });
  // @ts-expect-error: fields is a list of pointers
  bridge.subscribe('/a', () => {}, { fields: '/price' });
  // @ts-expect-error: fields holds pointers (strings)
  bridge.subscribe('/a', () => {}, { fields: [1, 2] });
  // @ts-expect-error: not an RFC 6902 operation
  applyPatch({}, [{ op: 'merge', path: '/a', value: 1 }]);
  // @ts-expect-error: positions are read-only to callers
  bridge.subscribe('/b', () => {}).positions.set('e', 1);
}

export function theTransports(): void {
  const sse = new SluiceBridge('https://bridge.example/ws', {
    token: 'jwt', transports: ['sse'], fetch: globalThis.fetch, sse: { maxEndpointsPerStream: 8, maxLineLength: 1 << 20 },
  });
  const either = new SluiceBridge('wss://bridge.example/ws', {
    token: 'jwt', transports: ['websocket', 'sse'], fallbackAfter: 3, fallbackAfterConnected: Infinity,
  });
  const now: Transport = either.transport;
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e), { maxLineLength: 1024, onRetry: (ms: number) => void ms.toFixed() });
  parser.push('data: x\n\n');
  parser.end();
  // @ts-expect-error: a transport the client does not know
  new SluiceBridge('wss://bridge.example/ws', { token: 'jwt', transports: ['long-polling'] });
  // @ts-expect-error: transports is a list
  new SluiceBridge('wss://bridge.example/ws', { token: 'jwt', transports: 'sse' });
  // @ts-expect-error: the transport in use is read-only
  either.transport = 'sse';
  void [sse, now];
}
