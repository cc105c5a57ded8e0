// The client's own event-stream parser (SseParser in sse-parser.js) against hostile input: chunks split anywhere,
// every line-end variant, comments, retry, ids with NUL, an endless line. What it must do is the WHATWG "event stream
// interpretation"; what it must not do is hold an unbounded line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../bridge-protocol.js';
import { SseParser } from '../sse-parser.js';

function parse(chunks, options = {}) {
  const events = [];
  const retries = [];
  const comments = [];
  const parser = new SseParser((e) => events.push(e), { ...options, onRetry: (ms) => retries.push(ms), onComment: (c) => comments.push(c) });
  for (const chunk of chunks) {
    parser.push(chunk);
  }
  parser.end();
  return { events, retries, comments };
}

const STREAM = 'retry: 2000\n\n: heartbeat\n\nevent: connected\ndata: {"type":"connected"}\n\nid: 1.AQ\ndata: {"a":1}\n\n'
  + 'id: 1.Ag\nevent: delta\ndata: line one\ndata: line two\n\ndata\n\n:comment without space\n\nfield-we-do-not-know: x\ndata:no space\n\n';

const EXPECTED = [
  { type: 'connected', data: '{"type":"connected"}', id: '' },
  { type: 'message', data: '{"a":1}', id: '1.AQ' },
  { type: 'delta', data: 'line one\nline two', id: '1.Ag' },
  { type: 'message', data: '', id: '1.Ag' },
  { type: 'message', data: 'no space', id: '1.Ag' },
];

test('events, comments and retry of a whole stream', () => {
  const { events, retries, comments } = parse([STREAM]);
  assert.deepEqual(events, EXPECTED);
  assert.deepEqual(retries, [2000]);
  assert.deepEqual(comments, [' heartbeat', 'comment without space']);
});

test('the same events whatever the chunking: every split point, and one character at a time', () => {
  for (let i = 0; i <= STREAM.length; i++) {
    assert.deepEqual(parse([STREAM.slice(0, i), STREAM.slice(i)]).events, EXPECTED, `split at ${i}`);
  }
  assert.deepEqual(parse([...STREAM]).events, EXPECTED);
});

test('CRLF, CR and LF line ends, mixed, and a CRLF split between two chunks is one line end', () => {
  for (const eol of ['\r\n', '\r', '\n']) {
    const stream = STREAM.replace(/\n/g, eol);
    assert.deepEqual(parse([stream]).events, EXPECTED, JSON.stringify(eol));
    for (let i = 0; i <= stream.length; i++) {
      assert.deepEqual(parse([stream.slice(0, i), stream.slice(i)]).events, EXPECTED, `${JSON.stringify(eol)} split at ${i}`);
    }
  }
  // CR then LF in the next chunk: one line end, not an empty line (which would dispatch early).
  assert.deepEqual(parse(['data: a\r', '\ndata: b\r\n\r\n']).events, [{ type: 'message', data: 'a\nb', id: '' }]);
  // CR, CR: two line ends, so an empty line: the event is dispatched.
  assert.deepEqual(parse(['data: a\r\rdata: b\n\n']).events, [{ type: 'message', data: 'a', id: '' }, { type: 'message', data: 'b', id: '' }]);
});

test('a byte order mark at the start is skipped; an event without its blank line at the end is discarded', () => {
  assert.deepEqual(parse(['\ufeffdata: x\n\n', 'data: never finished\n']).events, [{ type: 'message', data: 'x', id: '' }]);
});

test('a bad id: one with NUL is ignored, an empty one resets, any other text is kept as it is (the client never trusts it)', () => {
  const { events } = parse(['id: 1.good\ndata: a\n\nid: bad\0id\ndata: b\n\nid\ndata: c\n\nid: \u00e9\ud800 not base64!\ndata: d\n\n']);
  assert.deepEqual(events.map((e) => e.id), ['1.good', '1.good', '', '\u00e9\ud800 not base64!']);
});

test('retry takes digits only', () => {
  const { retries } = parse(['retry: 10\n', 'retry: -1\nretry: 1e3\nretry: 12a\nretry: \nretry: 99999999999999999999\nretry:0\n\n']);
  assert.deepEqual(retries, [10, 0]);
});

test('an endless line is refused once it passes the limit, in one chunk or many, without holding more', () => {
  const limit = 1024;
  assert.throws(() => parse(['data: ' + 'x'.repeat(limit)], { maxLineLength: limit }),
    (e) => e instanceof BridgeError && e.code === 'sse_line_too_long');
  const parser = new SseParser(() => assert.fail('no event'), { maxLineLength: limit });
  let thrown = null;
  let pushed = 0;
  try {
    for (; pushed < 100 * limit; pushed += 64) {
      parser.push('y'.repeat(64)); // never a line end: an endless line
    }
  } catch (e) {
    thrown = e;
  }
  assert.equal(thrown?.code, 'sse_line_too_long');
  assert.ok(pushed <= limit, `refused after ${pushed} characters`);
  assert.equal(parser.partial.length, 0, 'what it held is dropped');
  // A line exactly at the limit is fine.
  assert.deepEqual(parse(['data:' + 'z'.repeat(limit - 5) + '\n\n'], { maxLineLength: limit }).events.length, 1);
});

test('an endless event (many short data lines, never a blank line) is bounded too', () => {
  const parser = new SseParser(() => assert.fail('no event'), { maxLineLength: 1000 });
  assert.throws(() => {
    for (let i = 0; i < 10000; i++) {
      parser.push('data: 0123456789\n');
    }
  }, (e) => e.code === 'sse_line_too_long');
});
