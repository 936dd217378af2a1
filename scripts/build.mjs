// One esbuild script for every bundle: the extension (node, cjs, `vscode` external), the webview
// (browser iife), and the probe package (ESM + CJS + .d.ts, Node 18 / current browsers), plus the
// probe's CLI and demo app. `--watch` rebuilds on change; `--minify` is used when packaging (for the
// VSIX's bundles only).
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const watch = process.argv.includes('--watch');
const minify = process.argv.includes('--minify');
const skipTypes = process.argv.includes('--no-types');
const at = (p) => path.join(root, p);

const common = { bundle: true, sourcemap: 'linked', minify, logLevel: 'warning', legalComments: 'none' };
const probeTarget = ['node18', 'chrome110', 'firefox110', 'safari16'];

/**
 * ws's optional native speed-ups: ws requires them inside try/catch and falls back to JavaScript. They
 * become modules that throw when loaded, so the bundle needs nothing outside itself (the VSIX ships no
 * node_modules) and ws takes its fallback, as when they are not installed.
 */
function absentOptionalModules(names) {
  const filter = new RegExp(`^(${names.map((n) => n.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')).join('|')})$`);
  return {
    name: 'absent-optional-modules',
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'absent-optional' }));
      build.onLoad({ filter: /.*/, namespace: 'absent-optional' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not bundled`)});`,
        loader: 'js',
      }));
    },
  };
}

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: [at('extension/src/extension.ts')],
    outfile: at('dist/extension.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    plugins: [absentOptionalModules(['bufferutil', 'utf-8-validate'])],
  },
  {
    ...common,
    entryPoints: [at('webview/src/main.ts')],
    outfile: at('dist/webview/main.js'),
    platform: 'browser',
    format: 'iife',
    target: ['chrome110'],
  },
  {
    ...common,
    entryPoints: [at('runtime-probe/src/index.ts')],
    outfile: at('runtime-probe/dist/index.mjs'),
    platform: 'node',
    format: 'esm',
    target: probeTarget,
  },
  {
    // The bus alone, with no Node built-ins: what a browser app imports (`busscope-probe/bus`).
    ...common,
    entryPoints: [at('runtime-probe/src/bus/index.ts')],
    outfile: at('runtime-probe/dist/bus.mjs'),
    platform: 'neutral',
    format: 'esm',
    target: probeTarget,
  },
  {
    // Pages and workers (`busscope-probe/browser`): bus, recorder and WebSocket transport, no Node
    // built-ins (scripts/check-layers.mjs), size-budgeted (test/unit/browser/size.test.ts).
    ...common,
    entryPoints: [at('runtime-probe/src/browser/index.ts')],
    outfile: at('runtime-probe/dist/browser.mjs'),
    platform: 'browser',
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
  },
  {
    // A page's Web Workers (`busscope-probe/browser/worker`): the browser entry, loaded by a worker as
    // its first import. A few lines over dist/browser.mjs, never a second copy of it (its state — the
    // worker's id block, the page's port — must be the one `connectToPage` reads).
    ...common,
    entryPoints: [at('runtime-probe/src/browser/worker.ts')],
    outfile: at('runtime-probe/dist/browser-worker.mjs'),
    platform: 'browser',
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    plugins: [
      {
        name: 'browser-entry-external',
        setup(b) {
          b.onResolve({ filter: /^\.\/index$/ }, () => ({ path: './browser.mjs', external: true }));
        },
      },
    ],
  },
  {
    // Payload previews for pages and workers (`busscope-probe/browser/payloads`): the serialiser and the
    // browser's host objects, kept out of dist/browser.mjs (its size budget). Self-contained: it meets
    // the browser entry through the shared runtime (`runtime.optional.pageCapture`), not its module state.
    ...common,
    entryPoints: [at('runtime-probe/src/browser/payloads.ts')],
    outfile: at('runtime-probe/dist/browser-payloads.mjs'),
    platform: 'browser',
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
  },
  // The Vite plugin (`busscope-probe/vite`): runs in Vite's Node process.
  ...['esm', 'cjs'].map((format) => ({
    ...common,
    entryPoints: [at('runtime-probe/src/vite/index.ts')],
    outfile: at(`runtime-probe/dist/vite.${format === 'esm' ? 'mjs' : 'cjs'}`),
    platform: 'node',
    format,
    target: 'node18',
  })),
  // The wire protocol alone (no Node built-ins), for clients: `busscope-probe/protocol`.
  ...['esm', 'cjs'].map((format) => ({
    ...common,
    entryPoints: [at('runtime-probe/src/protocol/index.ts')],
    outfile: at(`runtime-probe/dist/protocol.${format === 'esm' ? 'mjs' : 'cjs'}`),
    platform: 'neutral',
    format,
    target: probeTarget,
  })),
  // The model and the analyses (no Node built-ins, no DOM, no vscode): `busscope-probe/analysis`.
  ...['esm', 'cjs'].map((format) => ({
    ...common,
    entryPoints: [at('runtime-probe/src/analysis/index.ts')],
    outfile: at(`runtime-probe/dist/analysis.${format === 'esm' ? 'mjs' : 'cjs'}`),
    platform: 'neutral',
    format,
    target: probeTarget,
  })),
  {
    ...common,
    entryPoints: [at('runtime-probe/src/index.ts')],
    outfile: at('runtime-probe/dist/index.cjs'),
    platform: 'node',
    format: 'cjs',
    target: probeTarget,
  },
  // The OpenTelemetry bridge (`busscope-probe/otel`): no Node built-ins (browser apps trace too);
  // @opentelemetry/api stays external, an optional peer only this entry loads.
  ...['esm', 'cjs'].map((format) => ({
    ...common,
    entryPoints: [at('runtime-probe/src/otel/index.ts')],
    outfile: at(`runtime-probe/dist/otel.${format === 'esm' ? 'mjs' : 'cjs'}`),
    platform: 'neutral',
    format,
    target: probeTarget,
    external: ['@opentelemetry/api'],
  })),
  // The leak gate for test suites (`busscope-probe/testing`): records while a test runs, judges
  // with the analyses. Node only (it writes and reads a trace file).
  ...['esm', 'cjs'].map((format) => ({
    ...common,
    entryPoints: [at('runtime-probe/src/testing/index.ts')],
    outfile: at(`runtime-probe/dist/testing.${format === 'esm' ? 'mjs' : 'cjs'}`),
    platform: 'node',
    format,
    target: 'node18',
  })),
  {
    // `node --require busscope-probe/register`: the probe started by itself, every emitter
    // instrumented. dist/register.mjs (`--import`) loads this same file (copied below).
    ...common,
    entryPoints: [at('runtime-probe/src/register.ts')],
    outfile: at('runtime-probe/dist/register.cjs'),
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
];

/** Files shipped as they are. */
function copyProbeFiles() {
  copyFileSync(at('runtime-probe/src/register.mjs'), at('runtime-probe/dist/register.mjs'));
}

// Entries that arrive with later parts of the probe; built when their source exists.
for (const [entry, out] of [
  ['runtime-probe/src/cli/main.ts', 'runtime-probe/dist/cli.cjs'],
  ['runtime-probe/src/demo/main.ts', 'runtime-probe/dist/demo.cjs'],
  // The demo `busscope demo` runs, as the package ships it: the same app without a source map (below).
  ['runtime-probe/src/demo/main.ts', 'runtime-probe/dist/busscope-demo.cjs'],
]) {
  if (!existsSync(at(entry))) continue;
  builds.push({
    ...common,
    entryPoints: [at(entry)],
    outfile: at(out),
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    banner: entry.includes('/cli/') ? { js: '#!/usr/bin/env node' } : undefined,
  });
}

// The register script the extension injects into debug launches (NODE_OPTIONS=--require, see
// extension/src/debugging/environment.ts): the whole probe in one self-contained file, since the
// debugged app has no busscope-probe of its own. CommonJS, so `--require` loads it in CommonJS and
// ESM apps alike; Node 18, the oldest Node the probe supports.
builds.push({
  ...common,
  entryPoints: [at('runtime-probe/src/register.ts')],
  outfile: at('dist/probe/register.cjs'),
  platform: 'node',
  format: 'cjs',
  target: 'node18',
});

// The npm package is read by its users — in stack traces, in the debugger, in `constructor.name` — so
// it is never minified (`--minify` shrinks only what the VSIX carries: extension, webview, the injected
// register script). No `keepNames`: no class is renamed by bundling, and it would wrap every closure the
// probe creates in a `__name` call.
// Nor does it carry source maps: readable code needs none, and its maps named runtime-probe/src files
// the package does not contain (80% of the tarball). The demo is built twice: dist/demo.cjs keeps its
// map for the repository (tests, `npm start` and the extension run from a clone show its warnings at
// src/demo/*.ts), and the package leaves both out (package.json `files`); dist/busscope-demo.cjs, which
// `busscope demo` runs, has no map and names none.
// The VSIX ships no maps of its minified bundles (.vscodeignore), so packaged bundles name none.
for (const b of builds) {
  if (!b.outfile.startsWith(at('runtime-probe/dist') + path.sep)) {
    if (minify) b.sourcemap = false;
    continue;
  }
  b.minify = false;
  if (b.outfile !== at('runtime-probe/dist/demo.cjs')) {
    b.sourcemap = false;
    rmSync(`${b.outfile}.map`, { force: true }); // an earlier build's map, which nothing names now
  }
}

function emitProbeTypes() {
  if (skipTypes) return;
  // Declarations come from tsc (esbuild does not emit them); the package's `types` points here.
  rmSync(at('runtime-probe/dist/types'), { recursive: true, force: true });
  execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', at('runtime-probe/tsconfig.build.json')], {
    stdio: 'inherit',
  });
  writeFileSync(at('runtime-probe/dist/index.d.ts'), "export * from './types/index';\n");
}

mkdirSync(at('dist'), { recursive: true });
if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
  copyProbeFiles();
  console.log('[busscope] watching for changes');
} else {
  const started = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyProbeFiles();
  emitProbeTypes();
  console.log(`[busscope] built ${builds.length} bundles in ${Date.now() - started} ms`);
}
