// The declarations describe what the modules really export: the same value exports, and every method a declared
// class has exists on the runtime class. tsc checks the declarations against their users (usage.ts); this checks
// them against the code. Needs the `typescript` dev dependency (npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = new URL('../../', import.meta.url);

function declared(file) {
  const path = fileURLToPath(new URL(file, root));
  const program = ts.createProgram([path], { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path);
  const module = checker.getSymbolAtLocation(source);
  const values = new Map();
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!(target.flags & ts.SymbolFlags.Value)) {
      continue; // types and interfaces exist only for the compiler
    }
    const methods = [];
    if (target.flags & ts.SymbolFlags.Class) {
      const instance = checker.getDeclaredTypeOfSymbol(target);
      for (const member of checker.getPropertiesOfType(instance)) {
        if (member.flags & ts.SymbolFlags.Method && !member.getDeclarations().some((d) => d.getSourceFile().isDeclarationFile
            && d.getSourceFile().fileName.includes('/typescript/lib/'))) {
          methods.push(member.getName());
        }
      }
    }
    values.set(symbol.getName(), methods);
  }
  return values;
}

for (const [declarations, module] of [['sluice-bridge.d.ts', 'sluice-bridge.js'], ['bridge-protocol.d.ts', 'bridge-protocol.js'],
  ['sse-parser.d.ts', 'sse-parser.js'], ['json-patch.d.ts', 'json-patch.js']]) {
  test(`${declarations} declares exactly the value exports of ${module}`, async () => {
    const runtime = await import(new URL(module, root).href);
    const values = declared(declarations);
    assert.deepEqual([...values.keys()].sort(), Object.keys(runtime).sort());
    for (const [name, methods] of values) {
      for (const method of methods) {
        assert.equal(typeof runtime[name].prototype[method], 'function', `${name}.${method} is declared but not defined`);
      }
    }
  });
}

test('the class methods are found at all (a check that finds none would pass anything)', () => {
  assert.deepEqual(declared('sluice-bridge.d.ts').get('SluiceBridge').sort(),
    ['close', 'connect', 'on', 'publish', 'subscribe', 'unsubscribe']);
  assert.deepEqual(declared('sluice-bridge.d.ts').get('SseParser').sort(), ['end', 'push']);
});
