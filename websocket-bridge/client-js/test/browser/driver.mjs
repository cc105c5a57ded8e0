// Drives headless Chromium for the JUnit browser tests (HeadlessBrowser.java), one JSON command per stdin line:
//   {"id": 1, "goto": "http://127.0.0.1:PORT/test.html", "ready": "window.harness"}
//                                                           opens the page in a fresh tab, waits until `ready` is truthy
//   {"id": 2, "eval": "harness.waitFor('/t/a', 3)"}          evaluates an expression in the page, awaiting promises
// and one JSON reply per stdout line: {"id": 1, "ok": true, "value": ...} or {"id": 1, "ok": false, "error": "..."}.
// The first line out is "ready". The page's console goes to stderr. Exits when stdin closes.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const executablePath = process.env.SLUICE_CHROMIUM || '/usr/bin/chromium';
// A fresh profile per run: no state from earlier runs or other users of this machine.
const profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let page = null;

function reply(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

async function handle(command) {
  if (command.goto) {
    if (page) {
      await page.close();
    }
    page = await context.newPage();
    page.on('console', (m) => process.stderr.write(`[page ${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
    const response = await page.goto(command.goto);
    if (!response || !response.ok()) {
      throw new Error(`GET ${command.goto}: ${response ? response.status() : 'no response'}`);
    }
    await page.waitForFunction(command.ready || 'true');
    return null;
  }
  if (!page) {
    throw new Error('no page open');
  }
  return page.evaluate(command.eval);
}

reply('ready');
const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  const command = JSON.parse(line);
  // One command at a time, in order: the Java side waits for each reply anyway.
  queue = queue.then(() => handle(command))
    .then((value) => reply({ id: command.id, ok: true, value: value === undefined ? null : value }))
    .catch((e) => reply({ id: command.id, ok: false, error: String(e && e.stack || e) }));
});
lines.on('close', async () => {
  await queue;
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(0);
});
