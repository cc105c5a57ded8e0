// What BrowserClientTest calls in the page: a SluiceBridge on this page's own host, and the messages it delivered.
import { SluiceBridge } from './sluice-bridge.js';

function plain(message) {
  const payload = message.payload instanceof Uint8Array ? { bytes: Array.from(message.payload) } : message.payload;
  return { endpoint: message.endpoint, epoch: message.epoch, seq: message.seq, format: message.format, payload, delta: message.delta,
    snapshot: message.snapshot };
}

/**
 * The page's WebSocket, recording every frame the server sends (to look at the deltas the client applied) and every
 * subscribe the client sends (to look at what a resubscription asked for).
 */
class RecordingWebSocket extends WebSocket {
  constructor(url) {
    super(url);
    this.addEventListener('message', (e) => window.harness.frames.push(JSON.parse(e.data)));
  }

  send(data) {
    const request = JSON.parse(data);
    if (request.type === 'subscribe') {
      window.harness.sentSubscribes.push(request);
    }
    super.send(data);
  }
}

window.harness = {
  bridge: null,
  received: {},
  gaps: {},
  events: [],
  frames: [],
  sentSubscribes: [],
  tokenCalls: 0,

  /** Connects; the token provider hands out `tokens` in turn, repeating the last. Resolves with the subject. */
  async start(tokens) {
    this.bridge = new SluiceBridge(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, {
      token: async () => tokens[Math.min(this.tokenCalls++, tokens.length - 1)],
      reconnect: { initialDelay: 100, maxDelay: 1000 },
      WebSocket: RecordingWebSocket,
    });
    for (const event of ['connected', 'disconnected', 'expiring', 'refreshed', 'error', 'gap']) {
      this.bridge.on(event, (value) => this.events.push({ event, code: value && value.code, message: value && value.message }));
    }
    return (await this.bridge.connect()).subject;
  },

  /** Subscribes; resolves once the server confirmed, or with {error: code, message}. Gaps go to `gaps[endpoint]`. */
  async subscribe(endpoint, options = {}) {
    this.received[endpoint] = [];
    this.gaps[endpoint] = [];
    const subscription = this.bridge.subscribe(endpoint, (m) => this.received[endpoint].push(plain(m)),
      { ...options, onGap: (g) => this.gaps[endpoint].push(g) });
    try {
      await subscription.ready;
      return true;
    } catch (e) {
      return { error: e.code, message: e.message, name: e.name, active: subscription.active };
    }
  },

  /** Waits until `n` messages arrived on the subscription; resolves with all of them. */
  async waitFor(endpoint, n, timeoutMs = 30000) {
    const deadline = Date.now() + timeoutMs;
    while (this.received[endpoint].length < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received[endpoint];
  },

  /** Waits until the event has happened `n` times. */
  async waitForEvent(event, n = 1, timeoutMs = 30000) {
    const deadline = Date.now() + timeoutMs;
    while (this.events.filter((e) => e.event === event).length < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.events.filter((e) => e.event === event).length;
  },

  async publish(endpoint, payload) {
    try {
      return await this.bridge.publish(endpoint, payload);
    } catch (e) {
      return { error: e.code };
    }
  },

  stats() {
    return { ...this.bridge.stats, state: this.bridge.state };
  },
};
