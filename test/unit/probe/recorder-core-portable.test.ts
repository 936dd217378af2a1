// The recorder core is for browser pages and workers too: bundled for the browser, nothing it pulls
// in may import a Node built-in. Its Node wiring (recorder.ts) is the one place that does.
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const builtins = new Set(builtinModules);

/** Bundles `entry` for the browser; returns the Node built-ins imported and the files bundled. */
async function bundle(entry: string): Promise<{ nodeImports: string[]; inputs: string[] }> {
  const nodeImports: string[] = [];
  const spy: Plugin = {
    name: 'node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.path.startsWith('node:') || builtins.has(args.path)) {
          nodeImports.push(`${args.path} (from ${path.relative(root, args.importer)})`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    metafile: true,
    logLevel: 'silent',
    plugins: [spy],
  });
  return { nodeImports, inputs: Object.keys(result.metafile.inputs) };
}

test('the recorder core bundles for the browser without a single node: import', async () => {
  const { nodeImports, inputs } = await bundle('runtime-probe/src/recorder/recorder-core.ts');
  assert.deepEqual(nodeImports, []);
  // It really is the recorder (not an empty bundle), without the Node-only modules.
  assert.ok(inputs.some((f) => f.endsWith('recorder/ring-encoder.ts')));
  assert.ok(!inputs.some((f) => f.endsWith('recorder/source-map.ts') || f.endsWith('debug/inspector-gate.ts')));
});

test('the Node wiring is where the built-ins come in (the check above can see them)', async () => {
  const { nodeImports } = await bundle('runtime-probe/src/recorder/recorder.ts');
  assert.ok(
    nodeImports.some((i) => i.startsWith('node:util')),
    nodeImports.join(', '),
  );
});
