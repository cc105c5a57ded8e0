// What ClientPackageTest runs with the installed npm package, the same code under Node and in Chromium: connect,
// subscribe to a prefix, publish JSON, text, bytes and a tombstone, receive them back from Kafka, and have a publish
// refused. The caller imports the package and passes its exports in, so each side resolves `sluice-bridge-client` its
// own way (node_modules under Node, an import map in the browser).
export async function roundTrip({ SluiceBridge, BridgeError }, { url, token, topic }) {
  const bridge = new SluiceBridge(url, { token: async () => token, reconnect: { initialDelay: 100, maxDelay: 1000 } });
  const errors = [];
  bridge.on('error', (e) => errors.push(String(e && e.code || e)));
  try {
    const connected = await bridge.connect();
    const received = [];
    let arrived;
    const allArrived = new Promise((resolve) => { arrived = resolve; });
    const subscription = bridge.subscribe(`/${topic}/room/*`, (m) => {
      received.push({ endpoint: m.endpoint, format: m.format, seq: m.seq,
        payload: m.payload instanceof Uint8Array ? { bytes: Array.from(m.payload) } : m.payload });
      if (received.length === 4) {
        arrived();
      }
    });
    await subscription.ready;
    const acks = [];
    for (const payload of [{ text: 'hi', n: [1, 2.5, null] }, 'hello \u00e9', new Uint8Array([0, 128, 255]), null]) {
      acks.push((await bridge.publish(`/${topic}/room/1`, payload)).seq);
    }
    let refused = null;
    try {
      await bridge.publish(`/${topic}-not-configured/x`, 'nope');
    } catch (e) {
      refused = { isBridgeError: e instanceof BridgeError, code: e.code };
    }
    // Bounded, and the timer cleared after: a pending timer would keep Node running after the result is printed.
    let timer;
    await Promise.race([allArrived, new Promise((resolve) => { timer = setTimeout(resolve, 30000); })]);
    clearTimeout(timer);
    return { subject: connected.subject, acks, received, refused, duplicatesDropped: bridge.stats.duplicatesDropped, errors };
  } finally {
    bridge.close();
  }
}
