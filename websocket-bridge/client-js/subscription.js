// One subscription of the client, whichever transport carries it: what it asked for (endpoint, filter, fields, delta,
// snapshot), the positions it has received up to (what a resubscription recovers from), and the delivery of messages,
// deltas and gaps to its callback, duplicates dropped. In: the server's subscribed replies, messages and gaps; out: the
// subscribe request and the user's callbacks. Shared by both transports, so that recovery is the same on each.

import { applyPatch } from './json-patch.js';
import { BridgeError, decodePayload } from './bridge-protocol.js';

/** A deep copy of a JSON value (undefined stays undefined); a TypeError for what JSON cannot carry at all. */
function copyJson(value, name) {
  if (value === undefined) {
    return undefined;
  }
  const text = JSON.stringify(value);
  if (text === undefined) {
    throw new TypeError(`options.${name} is not a JSON value`);
  }
  return JSON.parse(text);
}

/**
 * One subscription, kept across reconnects. `positions` maps each epoch (a topic-partition's history) to the highest
 * `seq` received, which is what a resubscription recovers from.
 */
export class Subscription {
  constructor(client, endpoint, callback, options) {
    this.client = client;
    this.endpoint = endpoint;
    this.callback = callback;
    this.options = options;
    // The selection is fixed at subscribe time: every resubscription (reconnect, retry after busy) sends the same one,
    // so recovery applies the filter and field list the subscription's positions were built under. A copy, so that a
    // caller changing its filter object afterwards cannot change what a later recovery selects.
    this.filter = copyJson(options.filter, 'filter');
    this.fields = copyJson(options.fields, 'fields');
    this.positions = new Map();
    // Subscribes refused with busy or rate_limited since the last success: how far the retry backs off.
    this.retries = 0;
    // Per exact endpoint, the last payload and its seq: the base of the next delta.
    this.latest = new Map();
    this.active = true;
    this.ready = new Promise((resolve, reject) => {
      this._resolve = resolve;
      this._reject = reject;
    });
    // Nobody has to await `ready`; an unobserved forbidden subscription must not be an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** The request that (re)joins the stream, recovering from the positions held, if any. */
  request() {
    const request = { type: 'subscribe', endpoint: this.endpoint };
    if (this.options.delta) {
      request.delta = true;
    }
    // Sent as given: the server validates them (invalid_filter, filter_too_large) and says where they are wrong.
    if (this.filter !== undefined) {
      request.filter = this.filter;
    }
    if (this.fields !== undefined) {
      request.fields = this.fields;
    }
    this.snapshotting = false;
    if (this.options.recover !== false && this.positions.size > 0) {
      request.recover = [...this.positions].map(([epoch, seq]) => ({ epoch, seq }));
    } else if (this.options.snapshot) {
      request.snapshot = true;
      this.snapshotting = true;
    }
    return request;
  }

  subscribed(reply) {
    this.retries = 0;
    this.confirmed = true;
    // Positions of the reply are where the node stands now. Where we hold a position, the recovered messages that
    // follow the reply move it; taking the node's instead would skip them if the connection broke meanwhile.
    for (const { epoch, seq } of reply.positions || []) {
      if (!this.positions.has(epoch)) {
        this.positions.set(epoch, seq);
      }
    }
    // Snapshot messages (the latest of each endpoint) are at or below these positions: they are not repeats.
    this.snapshotUpTo = this.snapshotting ? new Map((reply.positions || []).map(({ epoch, seq }) => [epoch, seq])) : null;
    this._resolve(this);
  }

  /** A message or delta for this subscription; returns false when it was one already delivered. */
  deliver(m) {
    const last = this.positions.get(m.epoch);
    const snapshot = this.snapshotUpTo !== null && this.snapshotUpTo !== undefined && this.snapshotUpTo.has(m.epoch)
      && m.seq <= this.snapshotUpTo.get(m.epoch);
    if (!snapshot && last !== undefined && m.seq <= last) {
      this.client.stats.duplicatesDropped++;
      return false;
    }
    let payload;
    if (m.type === 'delta') {
      const base = this.latest.get(m.endpoint);
      if (!base || base.seq !== m.base) {
        // The server sends a delta only on top of what it sent this connection; anything else is a bug to report.
        this.client._emit('error', new BridgeError('delta_base_missing',
          `delta for ${m.endpoint} seq ${m.seq} needs base ${m.base}, which this client does not have`));
        return false;
      }
      try {
        payload = applyPatch(base.payload, m.patch);
      } catch (e) {
        this.client._emit('error', new BridgeError('delta_failed', `delta for ${m.endpoint} seq ${m.seq}: ${e.message}`));
        return false;
      }
    } else {
      payload = decodePayload(m.format, m.payload);
    }
    if (!snapshot) {
      this.positions.set(m.epoch, m.seq);
    }
    if (this.options.delta) {
      this.latest.set(m.endpoint, { seq: m.seq, payload });
    }
    const message = {
      endpoint: m.endpoint, epoch: m.epoch, seq: m.seq, timestamp: m.timestamp,
      format: m.type === 'delta' ? 'json' : m.format, payload, delta: m.type === 'delta', snapshot,
    };
    try {
      this.callback(message);
    } catch (e) {
      this.client._emit('error', e);
    }
    return true;
  }

  /** A gap notice for this subscription; returns false when it was one already delivered. */
  gap(m) {
    if (m.reason === 'unknown_epoch') {
      // That history is gone (topic recreated, or not read here): what we hold of it means nothing any more.
      this.positions.delete(m.epoch);
    } else if (m.reason === 'undecodable') {
      // One record that does not decode, sent in its place in the stream like a message: it moves the position like
      // one, so a recovery after a reconnect starts after it and does not announce it twice.
      const last = this.positions.get(m.epoch);
      if (last !== undefined && m.toSeq <= last) {
        return false;
      }
      this.positions.set(m.epoch, m.toSeq);
    }
    this.options.onGap?.(m);
    return true;
  }

  unsubscribe() {
    return this.client.unsubscribe(this.endpoint);
  }
}
