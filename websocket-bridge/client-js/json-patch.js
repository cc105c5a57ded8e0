// RFC 6902 JSON Patch with RFC 6901 JSON Pointers, for the bridge's `delta` messages.
// Written here rather than taken from npm: the well-kept libraries ship CommonJS or need a bundler, and the
// bridge client must load as a plain ES module in a browser. applyPatch never mutates its input.

/** Thrown when a patch cannot be applied: a missing target, a failed `test`, a malformed operation. */
export class JsonPatchError extends Error {
  constructor(message, index) {
    super(index === undefined ? message : `operation ${index}: ${message}`);
    this.name = 'JsonPatchError';
  }
}

/** Splits a JSON Pointer into unescaped reference tokens ("" is the whole document). */
export function parsePointer(pointer) {
  if (typeof pointer !== 'string') {
    throw new JsonPatchError('a JSON Pointer must be a string');
  }
  if (pointer === '') {
    return [];
  }
  if (pointer[0] !== '/') {
    throw new JsonPatchError(`JSON Pointer '${pointer}' must start with '/'`);
  }
  // ~1 before ~0, so "~01" becomes "~1" and not "/" (RFC 6901 section 4).
  return pointer.slice(1).split('/').map((t) => {
    if (/~[^01]|~$/.test(t)) {
      throw new JsonPatchError(`JSON Pointer '${pointer}' has an invalid escape`);
    }
    return t.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function has(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Deep equality of JSON values, as the `test` operation defines it (object member order does not matter). */
export function jsonEqual(a, b) {
  if (a === b) {
    return true;
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function arrayIndex(token, array, allowEnd) {
  if (allowEnd && token === '-') {
    return array.length;
  }
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new JsonPatchError(`'${token}' is not an array index`);
  }
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) {
    throw new JsonPatchError(`index ${index} is out of bounds`);
  }
  return index;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(doc, tokens, pointer) {
  let node = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (Array.isArray(node)) {
      node = node[arrayIndex(t, node, false)];
    } else if (isObject(node) && has(node, t)) {
      node = node[t];
    } else {
      throw new JsonPatchError(`path '${pointer}' does not exist`);
    }
  }
  if (!Array.isArray(node) && !isObject(node)) {
    throw new JsonPatchError(`path '${pointer}' does not exist`);
  }
  return [node, tokens[tokens.length - 1]];
}

function get(doc, pointer) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) {
    return doc;
  }
  const [parent, last] = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    return parent[arrayIndex(last, parent, false)];
  }
  if (!has(parent, last)) {
    throw new JsonPatchError(`path '${pointer}' does not exist`);
  }
  return parent[last];
}

function add(doc, pointer, value) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) {
    return value;
  }
  const [parent, last] = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(last, parent, true), 0, value);
  } else {
    parent[last] = value;
  }
  return doc;
}

function remove(doc, pointer) {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) {
    throw new JsonPatchError('cannot remove the whole document');
  }
  const [parent, last] = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(last, parent, false), 1);
  } else {
    if (!has(parent, last)) {
      throw new JsonPatchError(`path '${pointer}' does not exist`);
    }
    delete parent[last];
  }
  return doc;
}

function required(op, name, index) {
  if (!has(op, name)) {
    throw new JsonPatchError(`'${op.op}' needs '${name}'`, index);
  }
  return op[name];
}

/**
 * Applies an RFC 6902 patch (add, remove, replace, move, copy, test) and returns the new document; the input is left
 * untouched. Throws JsonPatchError naming the failing operation; a patch applies entirely or not at all.
 */
export function applyPatch(document, patch) {
  if (!Array.isArray(patch)) {
    throw new JsonPatchError('a patch must be an array of operations');
  }
  let doc = clone(document);
  patch.forEach((op, index) => {
    try {
      const path = required(op, 'path', index);
      switch (op.op) {
        case 'add':
          doc = add(doc, path, clone(required(op, 'value', index)));
          break;
        case 'remove':
          doc = remove(doc, path);
          break;
        case 'replace': {
          const value = clone(required(op, 'value', index));
          // The target must exist; at the root the value simply becomes the document.
          get(doc, path);
          doc = parsePointer(path).length === 0 ? value : add(remove(doc, path), path, value);
          break;
        }
        case 'move': {
          const from = required(op, 'from', index);
          if (path !== from && path.startsWith(from + '/')) {
            throw new JsonPatchError(`cannot move '${from}' into its own child '${path}'`);
          }
          const value = get(doc, from);
          doc = add(remove(doc, from), path, value);
          break;
        }
        case 'copy':
          doc = add(doc, path, clone(get(doc, required(op, 'from', index))));
          break;
        case 'test':
          if (!jsonEqual(get(doc, path), required(op, 'value', index))) {
            throw new JsonPatchError(`test failed at '${path}'`);
          }
          break;
        default:
          throw new JsonPatchError(`unknown operation '${op.op}'`);
      }
    } catch (e) {
      if (e instanceof JsonPatchError && !e.message.startsWith('operation ')) {
        throw new JsonPatchError(e.message, index);
      }
      throw e;
    }
  });
  return doc;
}
