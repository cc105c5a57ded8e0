// The WebSocket transport (docs/bridge-protocol.md): one socket, its connect, and requests sent with an id whose reply
// (or error) goes back to whoever sent it. In: the client's token and requests; out: replies to their callbacks, and
// every other message of the server handed to the client's dispatch. Like sse-transport.js's connection it offers the
// client publish, renew and close; subscriptions are requests here, streams there. The client chooses between the
// two and reconnects either.

import { BridgeError, encodeBase64 } from './bridge-protocol.js';

export class WebSocketConnection {
  /** Opens the socket; once it is open the token goes as `connect`, whose reply is the client's `connected`. */
  constructor(client, token) {
    this.client = client;
    // Set once the socket opened, and once the server accepted the connect: a close before either is a failed upgrade.
    this.opened = false;
    this.connected = false;
    // Requests in flight by id: their reply or error goes to these callbacks, or `disconnected` when the socket closes.
    this.pending = new Map();
    const socket = new client.WebSocketImpl(client.wsUrl);
    this.socket = socket;
    socket.onopen = () => {
      this.opened = true;
      this.send({ type: 'connect', token }, (reply) => client._onConnected(reply));
    };
    socket.onmessage = (event) => this._message(event);
    socket.onclose = (event) => client._onClose(this, event);
    socket.onerror = () => {}; // a close event follows with what we can know
  }

  /** Sends a request with an id; the reply (or `error`) with that id goes to the callbacks. */
  send(request, onReply, onError = (e) => this.client._emit('error', e)) {
    const id = this.client.nextId++;
    this.pending.set(id, { onReply, onError });
    this.socket.send(JSON.stringify({ ...request, id }));
    return id;
  }

  /** Subscribes (or resubscribes, recovering from the positions held); refusals go to `onError`. */
  subscribe(subscription, onError) {
    this.send(subscription.request(), (reply) => subscription.subscribed(reply), onError);
  }

  unsubscribe(endpoint) {
    return new Promise((resolve, reject) => this.send({ type: 'unsubscribe', endpoint }, () => resolve(), reject));
  }

  /** A new token for the session: the server answers `refreshed`. */
  renew(token) {
    this.send({ type: 'refresh', token }, (reply) => this.client._emit('refreshed', reply));
  }

  /** Bytes as base64, anything else as JSON (or text, by its format); resolves with the ack. */
  publish(endpoint, payload, options) {
    const request = { type: 'publish', endpoint };
    if (payload instanceof Uint8Array) {
      request.format = 'base64';
      request.payload = encodeBase64(payload);
    } else {
      request.payload = payload === undefined ? null : payload;
      if (options.format) {
        request.format = options.format;
      }
    }
    return new Promise((resolve, reject) => this.send(request,
      (ack) => resolve({ endpoint: ack.endpoint, epoch: ack.epoch, seq: ack.seq }), reject));
  }

  /** The socket closed: every request in flight fails with `disconnected`. */
  failPending(event) {
    for (const { onError } of this.pending.values()) {
      // A publish in flight may or may not have reached Kafka; the caller decides whether to send it again.
      onError(new BridgeError('disconnected', `connection closed (${event.code}) before the reply`));
    }
    this.pending.clear();
  }

  close(code, reason) {
    this.socket.close(code, reason);
  }

  _message(event) {
    if (this !== this.client.ws) {
      return;
    }
    let m;
    try {
      m = JSON.parse(event.data);
    } catch (e) {
      this.client._emit('error', new BridgeError('malformed', 'the server sent something that is not JSON'));
      return;
    }
    if (m.id !== undefined && this.pending.has(m.id)) {
      const { onReply, onError } = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.type === 'error') {
        onError(new BridgeError(m.code, m.message, m.retryAfterMs));
      } else {
        onReply(m);
      }
      return;
    }
    this.client._dispatch(m, this.client.subscriptions);
  }
}
