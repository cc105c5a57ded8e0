// The npm `eventsource` package (a client we did not write) reading a bridge stream with an Authorization header, which
// it sends through its `fetch` option. Driven by SseFallbackTest: prints one JSON line per request it makes (with the
// Last-Event-ID it sends), per open, per message and per error; runs until its stdin closes.
// Usage: node test/foreign/eventsource-resume.mjs <stream url> <token>
import { EventSource } from 'eventsource';

const [url, token] = process.argv.slice(2);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const source = new EventSource(url, {
  fetch: (input, init) => {
    const headers = { ...(init.headers || {}) };
    print({ request: headers['Last-Event-ID'] ?? headers['last-event-id'] ?? null });
    return fetch(input, { ...init, headers: { ...headers, Authorization: `Bearer ${token}` } });
  },
});
source.onopen = () => print({ open: true });
source.onerror = (e) => print({ error: e.message ?? 'error', readyState: source.readyState });
source.onmessage = (e) => {
  const m = JSON.parse(e.data);
  print({ id: e.lastEventId, epoch: m.epoch, seq: m.seq, payload: m.payload });
};
process.stdin.resume();
process.stdin.on('end', () => {
  source.close();
  process.exit(0);
});
