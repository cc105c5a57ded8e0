// Parses an AsyncAPI document with the AsyncAPI initiative's parser and prints its diagnostics as JSON lines
// (severity 0 is an error). Used by AsyncApiDocumentTest: node validate.mjs <document.json>
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';

const text = readFileSync(process.argv[2], 'utf8');
const { document, diagnostics } = await new Parser().parse(text);
for (const d of diagnostics) {
  console.log(JSON.stringify({ severity: d.severity, code: d.code, message: d.message, path: d.path }));
}
console.log(JSON.stringify({ parsed: document !== undefined }));
