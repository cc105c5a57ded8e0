// Shared by the demo pages. DEMO ONLY: the token comes from the bridge demo's in-process issuer
// (/demo-token.json); a real page gets its token from the application's own login.
import { SluiceBridge } from './sluice-bridge.js';

export function demoBridge() {
  return new SluiceBridge(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, {
    token: async () => (await (await fetch('/demo-token.json')).json()).token,
    reconnect: { initialDelay: 250, maxDelay: 5000 },
  });
}

export function element(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  Object.entries(attributes).forEach(([k, v]) => e.setAttribute(k, v));
  children.forEach((c) => e.append(c));
  return e;
}

export function partitionOf(epoch) {
  return epoch.slice(epoch.lastIndexOf('-') + 1);
}
