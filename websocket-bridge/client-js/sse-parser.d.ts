// Types of sse-parser.js, the client's event-stream parser. Users import it from the package's entry point
// (sluice-bridge.d.ts re-exports it).

/** The default `maxLineLength`: 4 Mi characters. */
export const DEFAULT_MAX_SSE_LINE: number;

/** One event of a `text/event-stream`: its `event:` name (`message` when absent), its data lines joined, the last id. */
export interface SseEvent {
  type: string;
  data: string;
  id: string;
}

export interface SseParserOptions {
  /** The longest line, and event data, in characters (4 Mi); longer throws BridgeError `sse_line_too_long`. */
  maxLineLength?: number;
  /** A `retry:` field with its milliseconds. */
  onRetry?: (ms: number) => void;
  /** A comment line (`:` and what follows it), e.g. a heartbeat. */
  onComment?: (text: string) => void;
}

/**
 * The client's incremental event-stream parser (WHATWG): text in, in chunks split anywhere (CRLF, LF and CR line
 * ends), events out. Bounded: a line over `maxLineLength` throws.
 */
export class SseParser {
  constructor(onEvent: (event: SseEvent) => void, options?: SseParserOptions);
  /** Parses the next piece of text; complete events are passed to onEvent before it returns. */
  push(chunk: string): void;
  /** The stream ended: an unterminated event is discarded. */
  end(): void;
}
