// Run with `npm test` (the Maven build does, see ClientJsTest). Cases from RFC 6902 appendix A and RFC 6901.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, parsePointer, JsonPatchError } from '../json-patch.js';

test('RFC 6901 pointers unescape ~1 before ~0', () => {
  assert.deepEqual(parsePointer(''), []);
  assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
  assert.deepEqual(parsePointer('/'), ['']);
  assert.throws(() => parsePointer('a'), JsonPatchError);
  assert.throws(() => parsePointer('/a~2'), JsonPatchError);
});

test('A.1-A.4 add and remove object members and array elements', () => {
  assert.deepEqual(applyPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }]), { foo: 'bar', baz: 'qux' });
  assert.deepEqual(applyPatch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), { foo: ['bar', 'qux', 'baz'] });
  assert.deepEqual(applyPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }]), { foo: 'bar' });
  assert.deepEqual(applyPatch({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }]), { foo: ['bar', 'baz'] });
});

test('A.5-A.7 replace and move', () => {
  assert.deepEqual(applyPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }]), { baz: 'boo', foo: 'bar' });
  assert.deepEqual(applyPatch({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]),
  { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
  assert.deepEqual(applyPatch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]),
    { foo: ['all', 'cows', 'eat', 'grass'] });
  assert.deepEqual(applyPatch([1, 2, 3], [{ op: 'replace', path: '/1', value: 9 }]), [1, 9, 3]);
  assert.deepEqual(applyPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
});

test('A.8-A.10 test succeeds, fails, and adds nested objects', () => {
  const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
  assert.deepEqual(applyPatch(doc, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }]), doc);
  assert.throws(() => applyPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]), /test failed/);
  assert.deepEqual(applyPatch({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }]),
    { foo: 'bar', child: { grandchild: {} } });
  assert.ok(applyPatch({ a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }]));
});

test('A.12-A.16 errors, escapes, arrays as values, append with -', () => {
  assert.throws(() => applyPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), /does not exist/);
  assert.deepEqual(applyPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }]), { '/': 9, '~1': 10 });
  assert.throws(() => applyPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]), /test failed/);
  assert.deepEqual(applyPatch({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }]), { foo: ['bar', ['abc', 'def']] });
  assert.deepEqual(applyPatch({ 'a/b': 1 }, [{ op: 'copy', from: '/a~1b', path: '/c' }]), { 'a/b': 1, c: 1 });
});

test('bad operations fail without touching the input', () => {
  const doc = { list: [1, 2], obj: { k: 1 } };
  const before = JSON.stringify(doc);
  assert.throws(() => applyPatch(doc, [{ op: 'remove', path: '/list/0' }, { op: 'remove', path: '/nope' }]), /operation 1/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/list/3', value: 0 }]), /out of bounds/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', path: '/list/01', value: 0 }]), /not an array index/);
  assert.throws(() => applyPatch(doc, [{ op: 'replace', path: '/missing', value: 0 }]), /does not exist/);
  assert.throws(() => applyPatch(doc, [{ op: 'move', from: '/obj', path: '/obj/k2' }]), /own child/);
  assert.throws(() => applyPatch(doc, [{ op: 'frobnicate', path: '/obj' }]), /unknown operation/);
  assert.throws(() => applyPatch(doc, [{ op: 'add', value: 1 }]), /needs 'path'/);
  assert.equal(JSON.stringify(doc), before);
  const copied = applyPatch(doc, [{ op: 'copy', from: '/obj', path: '/obj2' }]);
  copied.obj2.k = 5;
  assert.equal(copied.obj.k, 1);
});
