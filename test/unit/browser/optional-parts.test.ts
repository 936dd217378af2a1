// `busscope-probe/browser` leaves out what a page cannot use (bus/optional-parts.ts): a page that opens
// a producer port anyway is told which import to add, and with that import it works. Each case runs the
// bundle a page's bundler makes in a fresh process, so no other copy has registered the parts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function runPage(imports: string, body: string): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const result = await build({
    stdin: { contents: `${imports}\n${body}`, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['chrome110'],
    logLevel: 'silent',
  });
  const run = spawnSync(process.execPath, ['--input-type=module'], { input: result.outputFiles[0].text, encoding: 'utf8', timeout: 20_000 });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

const OPEN_PORT = `
const bus = new EventBus({ name: 'page' });
try {
  const port = bus.openProducerPort();
  console.log('opened ' + (typeof port.postMessage));
} catch (error) {
  console.log(error.constructor.name + ': ' + error.message);
}
bus.dispose();
`;

test('busscope-probe/browser alone: openProducerPort throws an Error naming the import to add', async () => {
  const r = await runPage(`import { EventBus } from './runtime-probe/src/browser/index.ts';`, OPEN_PORT);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "Error: EventBus.openProducerPort: add import 'busscope-probe/bus' (producer ports are not in 'busscope-probe/browser')");
});

test("busscope-probe/browser with import 'busscope-probe/bus': openProducerPort opens a port", async () => {
  const r = await runPage(`import { EventBus } from './runtime-probe/src/browser/index.ts';\nimport './runtime-probe/src/bus/index.ts';`, OPEN_PORT);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'opened function');
});
