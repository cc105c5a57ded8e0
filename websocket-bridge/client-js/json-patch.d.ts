// Types of json-patch.js: RFC 6902 JSON Patch with RFC 6901 JSON Pointers, as the bridge's `delta` messages use them.

/** A JSON value as JSON.parse returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [member: string]: JsonValue };

/** One RFC 6902 operation. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: JsonValue }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: JsonValue };

/** Thrown when a patch cannot be applied: a missing target, a failed `test`, a malformed operation. */
export class JsonPatchError extends Error {
  constructor(message: string, index?: number);
  readonly name: 'JsonPatchError';
}

/** Splits a JSON Pointer into unescaped reference tokens (`""` is the whole document, `[]`). */
export function parsePointer(pointer: string): string[];

/** Deep equality of JSON values, as the `test` operation defines it (object member order does not matter). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean;

/**
 * Applies a patch and returns the new document; the input is left untouched. Throws JsonPatchError naming the failing
 * operation; a patch applies entirely or not at all.
 */
export function applyPatch(document: JsonValue, patch: readonly JsonPatchOperation[]): JsonValue;
