// A TypeScript project that installed the packed tarball: its declarations resolve through the package's exports,
// under `tsc --strict` with NodeNext resolution (tsconfig.json beside this file, copied into the scratch project).
import { SluiceBridge, BridgeError, type BridgeMessage, type PublishAck } from 'sluice-bridge-client';
import { applyPatch, type JsonValue } from 'sluice-bridge-client/json-patch';

export async function latestScore(url: string, token: () => Promise<string>): Promise<PublishAck> {
  const bridge = new SluiceBridge(url, { token });
  await bridge.connect();
  bridge.subscribe('/scores/*', (m: BridgeMessage) => {
    if (m.format === 'json') {
      const doc: JsonValue = applyPatch(m.payload, [{ op: 'add', path: '/seen', value: true }]);
      void doc;
    }
  });
  try {
    return await bridge.publish('/scores/a', { home: 1 });
  } catch (e) {
    throw e instanceof BridgeError ? new Error(e.code) : e;
  } finally {
    bridge.close();
  }
}

// @ts-expect-error: the package's types are in force (an unknown option is an error, not `any`)
new SluiceBridge('ws://x/ws', { token: 't', retries: 3 });
