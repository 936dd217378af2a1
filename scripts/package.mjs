#!/usr/bin/env node
// `npm run package`: a minified build, then busscope-<version>.vsix at the repo root via @vscode/vsce.
// Everything the extension runs is bundled by esbuild, so vsce packs no node_modules
// (`dependencies: false`); .vscodeignore keeps the VSIX to dist bundles, media, README, LICENSE and the
// demo app.
//
// The demo app: the build emits runtime-probe/dist/demo.cjs (one self-contained bundle) once
// runtime-probe/src/demo/main.ts exists. It is copied to dist/demo/demo.cjs, so in an installed
// extension it is at `path.join(context.extensionPath, 'dist', 'demo', 'demo.cjs')` (run it with
// `process.execPath` / the user's node and BUSSCOPE=1). When the demo's source exists and its bundle
// does not, packaging fails: a VSIX without the demo breaks acceptance story 1.
//
// Size budget (enforced by test/package/vsix.test.ts): the .vsix at most 2 MiB.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => path.join(root, p);
const require = createRequire(import.meta.url);
const started = Date.now();

const { version } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
const vsixPath = at(`busscope-${version}.vsix`);

// 1. Minified bundles (the probe's .d.ts are not part of the VSIX: skip tsc).
const build = spawnSync(process.execPath, [at('scripts/build.mjs'), '--minify', '--no-types'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('[package] build failed');
  process.exit(build.status ?? 1);
}

// 2. The demo app, where the extension finds it.
const demoSource = at('runtime-probe/src/demo/main.ts');
const demoBundle = at('runtime-probe/dist/demo.cjs');
rmSync(at('dist/demo'), { recursive: true, force: true });
if (existsSync(demoBundle)) {
  mkdirSync(at('dist/demo'), { recursive: true });
  copyFileSync(demoBundle, at('dist/demo/demo.cjs'));
} else if (existsSync(demoSource)) {
  console.error('[package] runtime-probe/src/demo/main.ts exists but the build did not produce runtime-probe/dist/demo.cjs');
  process.exit(1);
} else {
  console.warn('[package] WARNING: no demo app yet (runtime-probe/src/demo/main.ts); the VSIX carries none');
}

// 3. The VSIX.
rmSync(vsixPath, { force: true });
const vsce = require('@vscode/vsce');
try {
  await vsce.createVSIX({ cwd: root, packagePath: vsixPath, dependencies: false });
} catch (e) {
  console.error(`[package] vsce failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
const files = await vsce.listFiles({ cwd: root, packageManager: vsce.PackageManager.None });
console.log(`[package] ${path.relative(process.cwd(), vsixPath)}: ${(statSync(vsixPath).size / 1024).toFixed(1)} KiB, ` +
  `${files.length} files, in ${Date.now() - started} ms`);
for (const f of files.sort()) console.log(`  ${f}`);
