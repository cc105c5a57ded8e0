// The catalogue page: lists the endpoints of /asyncapi.json and, with a token, probes which ones the token may
// subscribe to (the server's answer is the authority: a token's claim alone does not say what this node maps) and
// prints live messages of a "try it" subscription. Uses the node's own JavaScript client.
import { SluiceBridge } from '/sluice-bridge.js';

const $ = (id) => document.getElementById(id);
let doc;
let bridge;
let trial;

function text(value) {
  const span = document.createElement('span');
  span.textContent = value;
  return span;
}

/** The subscribable endpoint of a channel: its address with the {key} parameter as the prefix wildcard. */
function endpointOf(channel) {
  return channel.address.replace(/\{key\}$/, '*');
}

function resolve(ref) {
  return ref.$ref.substring(2).split('/').reduce((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

async function load() {
  doc = await (await fetch('/asyncapi.json')).json();
  const server = Object.values(doc.servers)[0];
  $('server').textContent = `WebSocket: ${server.protocol}://${server.host}${server.pathname}`;
  const rows = $('endpoints');
  for (const [id, channel] of Object.entries(doc.channels)) {
    const row = document.createElement('tr');
    row.dataset.endpoint = endpointOf(channel);
    const endpoint = document.createElement('td');
    endpoint.append(text(row.dataset.endpoint));
    const description = document.createElement('td');
    description.append(text(channel.description));
    const schema = document.createElement('td');
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'schema';
    const pre = document.createElement('pre');
    const payloadRef = resolve(channel.messages.message).payload.properties.payload.anyOf[0];
    pre.textContent = JSON.stringify({ payload: resolve(payloadRef), components: doc.components.schemas }, null, 1)
      .slice(0, 20000);
    details.append(summary, pre);
    schema.append(details);
    const access = document.createElement('td');
    access.className = 'access';
    access.textContent = '—';
    row.append(endpoint, description, schema, access);
    row.addEventListener('click', () => { $('endpoint').value = row.dataset.endpoint; });
    rows.append(row);
    row.id = `channel-${id}`;
  }
}

function url() {
  const server = Object.values(doc.servers)[0];
  return `${server.protocol}://${server.host}${server.pathname}`;
}

async function connect() {
  if (bridge) {
    bridge.close();
  }
  const token = $('token').value.trim();
  bridge = new SluiceBridge(url(), { token, reconnect: { maxDelay: 2000 } });
  $('status').textContent = 'connecting';
  try {
    const session = await bridge.connect();
    $('status').textContent = `connected to ${session.node} as ${session.subject}`;
  } catch (e) {
    $('status').textContent = `refused: ${e.message}`;
    return;
  }
  // One probe at a time: subscribing is rate limited per connection.
  for (const row of $('endpoints').children) {
    const cell = row.querySelector('.access');
    const probe = bridge.subscribe(row.dataset.endpoint, () => {}, { recover: false });
    try {
      await probe.ready;
      cell.textContent = 'may subscribe';
      cell.className = 'access allowed';
      await probe.unsubscribe();
    } catch (e) {
      cell.textContent = e.code === 'forbidden' ? 'forbidden (at least some keys)' : `${e.code}: ${e.message}`;
      cell.className = `access ${e.code === 'forbidden' ? 'forbidden' : ''}`;
    }
  }
  $('status').textContent += '; probed';
}

function subscribe() {
  if (!bridge) {
    $('messages').textContent = 'connect with a token first\n';
    return;
  }
  if (trial) {
    trial.unsubscribe().catch(() => {});
  }
  const endpoint = $('endpoint').value.trim();
  $('messages').textContent = `subscribing to ${endpoint}\n`;
  trial = bridge.subscribe(endpoint, (m) => {
    const line = `${m.endpoint} seq ${m.seq}: ${m.format === 'base64' ? '(bytes)' : JSON.stringify(m.payload)}\n`;
    $('messages').textContent += line;
  }, { snapshot: true, onGap: (g) => { $('messages').textContent += `gap ${JSON.stringify(g)}\n`; } });
  trial.ready.then(() => { $('messages').textContent += 'subscribed\n'; },
    (e) => { $('messages').textContent += `refused: ${e.code}: ${e.message}\n`; });
}

$('connect').addEventListener('click', () => { connect(); });
$('subscribe').addEventListener('click', subscribe);
load().then(() => { document.body.dataset.loaded = 'true'; },
  (e) => { $('server').textContent = `cannot load /asyncapi.json: ${e}`; });
