// busscope-probe/browser is what a page ships: bus + recorder + WebSocket transport must stay within
// 25 KB once a bundler has minified it and the server gzips it, and must not pull in a Node built-in.
// `watch()` (the emitter adapters) is extra, paid only by pages that import it.
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUDGET_BYTES = 25 * 1024;

async function bundle(
  names: string,
  entry = './runtime-probe/src/browser/index.ts',
): Promise<{ inputs: string[]; gzipped: number; minified: number; nodeImports: string[] }> {
  const nodeImports: string[] = [];
  const spy: Plugin = {
    name: 'node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.path.startsWith('node:') || builtinModules.includes(args.path)) {
          nodeImports.push(`${args.path} (from ${path.relative(root, args.importer)})`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
  // What an app's bundler does with it: the page imports connect, watch and the bus.
  const result = await build({
    stdin: {
      contents: `import { ${names} } from '${entry}'; globalThis.x = { ${names} };`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['chrome110'],
    metafile: true,
    logLevel: 'silent',
    plugins: [spy],
  });
  const out = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(out.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([f]) => f);
  const code = result.outputFiles[0].contents;
  return { inputs, gzipped: gzipSync(code, { level: 9 }).length, minified: code.length, nodeImports };
}

test('bus + recorder + transport (connect, EventBus): minified and gzipped within the 25 KB budget, no Node built-ins', async () => {
  const b = await bundle('connect, EventBus');
  assert.deepEqual(b.nodeImports, []);
  // It is the real thing: the bus, the recorder core, the protocol encoder and the transport.
  for (const part of ['bus/event-bus.ts', 'recorder/recorder-core.ts', 'recorder/ring-encoder.ts', 'protocol/record-writer.ts', 'browser/page-link.ts']) {
    assert.ok(
      b.inputs.some((f) => f.endsWith(part)),
      `${part} in the bundle`,
    );
  }
  // The emitter adapters are left out when the page does not import watch.
  const adapters = b.inputs.filter((f) => /emitters\/(dom-event-target|mitt|nanoevents|watch-core)\.ts$/.test(f));
  assert.deepEqual(adapters, []);
  // Parts a page cannot use come with `busscope-probe` / `busscope-probe/bus` (bus/optional-parts.ts),
  // the tracer multiplexers with hooking, the protocol's reader not at all.
  // So are the Web Workers' parts (`addWorker`, `connectToPage`) when unused: the page pays only their slot.
  for (const part of [
    'bus/producer-inbox.ts',
    'debug/event-breaks.ts',
    'bus/tracer-mux.ts',
    'protocol/record-decoder.ts',
    'threads/page-threads.ts',
    'threads/worker-side.ts',
  ]) {
    assert.ok(!b.inputs.some((f) => f.endsWith(part)), `${part} left out`);
  }
  console.log(`busscope-probe/browser (connect, EventBus): ${b.minified} B minified, ${b.gzipped} B gzipped (budget ${BUDGET_BYTES} B)`);
  // The budget (#14): 24,140 B when the browser entry landed, 27,250 B after the merges of
  // handler sampling, dispatch blocks, OpenTelemetry context and producer ports, 25,533 B since,
  // 25,595 B before the producer queue's cap (and the producer counts) moved to the producer inbox,
  // an optional part: 25,560 B with them moved and producer origins (cross-thread flows) recorded;
  // 25,597 B, then 24,407 B once ring offsets became inlined enums and Node-only parts left the core.
  assert.ok(b.gzipped <= BUDGET_BYTES, `${b.gzipped} B gzipped exceeds the ${BUDGET_BYTES} B budget`);
});

test('watch adds the EventTarget, mitt and nanoevents adapters, and still no Node built-in', async () => {
  const b = await bundle('connect, watch, EventBus');
  assert.deepEqual(b.nodeImports, []);
  for (const part of ['emitters/dom-event-target.ts', 'emitters/mitt.ts', 'emitters/nanoevents.ts', 'emitters/emitter-bus.ts']) {
    assert.ok(
      b.inputs.some((f) => f.endsWith(part)),
      `${part} in the bundle`,
    );
  }
  assert.ok(!b.inputs.some((f) => f.endsWith('emitters/node-emitter.ts') || f.endsWith('emitters/event-target.ts')), 'Node-only adapters left out');
  console.log(`busscope-probe/browser (connect, watch, EventBus): ${b.minified} B minified, ${b.gzipped} B gzipped`);
});

test("a page's Web Workers (addWorker, connectToPage) add their parts only when imported, and still no Node built-in", async () => {
  const b = await bundle('connect, addWorker, connectToPage, EventBus');
  assert.deepEqual(b.nodeImports, []);
  for (const part of ['browser/threads/page-threads.ts', 'browser/threads/worker-side.ts']) {
    assert.ok(
      b.inputs.some((f) => f.endsWith(part)),
      `${part} in the bundle`,
    );
  }
  console.log(`busscope-probe/browser (connect, addWorker, connectToPage, EventBus): ${b.minified} B minified, ${b.gzipped} B gzipped`);
  // The worker entry (busscope-probe/browser/worker) is the same code plus the call that joins at load.
  const w = await bundle('connectToPage, EventBus', './runtime-probe/src/browser/worker.ts');
  assert.deepEqual(w.nodeImports, []);
});
