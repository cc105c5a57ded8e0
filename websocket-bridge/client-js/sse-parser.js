// The incremental parser of a text/event-stream body that the SSE transport reads its stream with (and that a user may
// use on its own: the package exports it). In: text as it arrives; out: complete events. Its own module so that it can
// be read and tested without the transport around it.

import { BridgeError } from './bridge-protocol.js';

/** Longest SSE line (and event) the client reads: a record of Kafka's default 1 MiB limit, base64 in JSON, fits. */
export const DEFAULT_MAX_SSE_LINE = 4 * 1024 * 1024;

/**
 * An incremental parser of a `text/event-stream` body (the WHATWG "event stream interpretation"): text goes in as it
 * arrives, in chunks split anywhere; complete events come out. Lines end with CRLF, LF or CR (a CR at the end of one
 * chunk and an LF at the start of the next are one line end); `:` lines are comments; the fields are `event`, `data`
 * (several join with LF), `id` (one containing NUL is ignored, as the standard says) and `retry` (digits only). A line,
 * or an event's data, longer than `maxLineLength` characters throws a BridgeError (`sse_line_too_long`): the reader
 * must not hold an endless line in memory, so the stream is abandoned.
 */
export class SseParser {
  /**
   * @param {function({type: string, data: string, id: string}): void} onEvent
   * @param {object} [options] maxLineLength (characters, default 4 Mi), onRetry(ms), onComment(text)
   */
  constructor(onEvent, options = {}) {
    this.onEvent = onEvent;
    this.maxLineLength = options.maxLineLength || DEFAULT_MAX_SSE_LINE;
    this.onRetry = options.onRetry;
    this.onComment = options.onComment;
    this.partial = '';
    this.afterCR = false;
    this.first = true;
    this.lastEventId = '';
    this._reset();
  }

  _reset() {
    this.type = '';
    this.data = null;
    this.dataLength = 0;
  }

  /** Parses the next piece of text; events complete in it are passed to onEvent before it returns. */
  push(chunk) {
    let start = 0;
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        start = 1; // a byte order mark at the very start is not part of the first line
      }
    }
    if (this.afterCR && chunk.length > start) {
      this.afterCR = false;
      if (chunk.charCodeAt(start) === 10) {
        start++;
      }
    }
    for (let i = start; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c !== 10 && c !== 13) {
        continue;
      }
      const line = this.partial + chunk.slice(start, i);
      this.partial = '';
      this._checkLength(line.length);
      if (c === 13) {
        if (i + 1 < chunk.length) {
          if (chunk.charCodeAt(i + 1) === 10) {
            i++;
          }
        } else {
          this.afterCR = true;
        }
      }
      start = i + 1;
      this._line(line);
    }
    this._checkLength(this.partial.length + chunk.length - start);
    this.partial += chunk.slice(start);
  }

  /** The stream ended: an event without its blank line is discarded, as the standard says. */
  end() {
    this.partial = '';
    this._reset();
  }

  _checkLength(length) {
    if (length > this.maxLineLength) {
      this.partial = '';
      this._reset();
      throw new BridgeError('sse_line_too_long', `the event stream sent a line over ${this.maxLineLength} characters`);
    }
  }

  _line(line) {
    if (line === '') {
      this._dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58) { // ':'
      this.onComment?.(line.slice(1));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) {
      value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.dataLength += value.length + 1;
        this._checkLength(this.dataLength);
        (this.data ||= []).push(value);
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventId = value;
        }
        break;
      case 'retry':
        if (/^[0-9]{1,15}$/.test(value)) {
          this.onRetry?.(Number(value));
        }
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  _dispatch() {
    const { type, data } = this;
    this._reset();
    if (data === null) {
      return; // no data: nothing to dispatch (an `id:` alone still set the last id)
    }
    this.onEvent({ type: type || 'message', data: data.join('\n'), id: this.lastEventId });
  }
}
