#!/usr/bin/env node
// `npm run package`: a minified build, then busscope-<version>.vsix at the repo root via @vscode/vsce
// (`-- --list` prints the files it holds).
// Everything the extension runs is bundled by esbuild, so vsce packs no node_modules
// (`dependencies: false`); .vscodeignore keeps the VSIX to dist bundles, media, README, LICENSE and the
// demo app.
//
// The demo app is bundled here, not copied from the minified build, so that its subscribe sites open
// in the editor after install: dist/demo/demo.cjs, NOT minified, with a linked source map
// (dist/demo/demo.cjs.map, no sourcesContent). Every file the map names (the demo's TypeScript and the
// parts of the probe it bundles) is copied, byte for byte, to dist/demo/runtime-probe/src/… and the map
// is rewritten to point there, relative to itself. The extension runs the demo with
// --enable-source-maps, so in an installed extension a site is
// `<extension>/dist/demo/runtime-probe/src/demo/hud.ts:26` — a file that exists, and whose imports
// resolve in the editor (only the files using Node's globals miss @types/node there). Frames of the
// bus keep a `runtime-probe/src/bus/…` path, which the probe recognises as its own and skips.
// Unminified, the bus's methods also keep their names (EventBus.subscribe), so even without source
// maps a site is the demo's call in demo.cjs, never the bus's subscribe. In the extension:
// `path.join(context.extensionPath, 'dist', 'demo', 'demo.cjs')`. When the demo's source exists and
// its bundle cannot be built, packaging fails: a VSIX without the demo breaks the README's first
// steps (*Busscope: Run Demo App*).
//
// Size budget (enforced by test/package/vsix.test.ts): the .vsix at most 2 MiB.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

// The register script injected into debug launches is part of the minified build (scripts/build.mjs);
// a VSIX without it would silently not instrument debugged apps.
if (!existsSync(at('dist/probe/register.cjs'))) {
  console.error('[package] dist/probe/register.cjs was not built (runtime-probe/src/register.ts)');
  process.exit(1);
}

// 2. The demo app, where the extension finds it, with sites that open in the editor (see the top).
const demoSource = at('runtime-probe/src/demo/main.ts');
const demoDir = at('dist/demo');
rmSync(demoDir, { recursive: true, force: true });
if (existsSync(demoSource)) {
  const esbuild = await import('esbuild');
  try {
    await esbuild.build({
      entryPoints: [demoSource],
      outfile: path.join(demoDir, 'demo.cjs'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      minify: false,
      sourcemap: 'linked',
      // The map points at the shipped .ts files; their text need not be in it too.
      sourcesContent: false,
      legalComments: 'none',
      logLevel: 'warning',
    });
  } catch (e) {
    console.error(`[package] the demo app did not build: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
  shipDemoSources(path.join(demoDir, 'demo.cjs.map'));
} else {
  console.warn('[package] WARNING: no demo app yet (runtime-probe/src/demo/main.ts); the VSIX carries none');
}

/**
 * Copies every source the demo's map names into dist/demo/ (keeping its path under runtime-probe/src/)
 * and points the map at the copies. Files those import only for types (the event maps, the bus's
 * types, barrels) have no code in the bundle, so they are not in the map: they are copied too (the
 * closure of relative imports, read with TypeScript's preProcessFile), so that an opened site
 * type-checks in the editor instead of showing unresolved imports. A map source outside
 * runtime-probe/src fails packaging: the VSIX would yield sites that point at files the user does
 * not have.
 */
function shipDemoSources(mapFile) {
  const ts = require('typescript');
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const mapDir = path.dirname(mapFile);
  const probeSrc = at('runtime-probe/src');
  const shippedPath = (file) => path.join(mapDir, 'runtime-probe', 'src', path.relative(probeSrc, file));
  const inProbeSrc = (file) => {
    const rel = path.relative(probeSrc, file);
    return !rel.startsWith('..') && !path.isAbsolute(rel) && /\.ts$/.test(rel) && existsSync(file);
  };
  map.sources = map.sources.map((source) => {
    const file = path.resolve(mapDir, source);
    if (!inProbeSrc(file)) {
      console.error(`[package] dist/demo/demo.cjs.map names ${source}, which is not a TypeScript file of runtime-probe/src`);
      process.exit(1);
    }
    return path.relative(mapDir, shippedPath(file)).split(path.sep).join('/');
  });
  const pending = map.sources.map((s) => path.join(probeSrc, path.relative(path.join(mapDir, 'runtime-probe', 'src'), path.resolve(mapDir, s))));
  const shipped = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (shipped.has(file)) continue;
    shipped.add(file);
    const target = shippedPath(file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file, target);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue; // node: built-ins
      const base = path.resolve(path.dirname(file), fileName.replace(/\.[cm]?js$/, ''));
      const resolved = [`${base}.ts`, path.join(base, 'index.ts')].find(inProbeSrc);
      if (resolved !== undefined) pending.push(resolved);
    }
  }
  writeFileSync(mapFile, JSON.stringify(map));
  console.log(`[package] demo: ${map.sources.length} mapped sources, ${shipped.size} TypeScript files shipped in dist/demo/runtime-probe/src`);
}

// 3. The VSIX.
rmSync(vsixPath, { force: true });
const vsce = require('@vscode/vsce');
const listFiles = process.argv.includes('--list');
// vsce logs a 35-entry file tree as `info`; a newcomer running `npm start` needs the one line after
// it, so the tree shows only with `--list` (warnings and errors always show).
if (!listFiles) require('@vscode/vsce/out/util').log.info = () => {};
try {
  // rewriteRelativeLinks: false keeps README's media/screenshots/*.png relative, so the installed
  // extension's page shows them from the VSIX; vsce would otherwise point them at a GitHub URL built
  // from package.json's repository (a placeholder), where they do not exist.
  await vsce.createVSIX({ cwd: root, packagePath: vsixPath, dependencies: false, rewriteRelativeLinks: false });
} catch (e) {
  console.error(`[package] vsce failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
const files = await vsce.listFiles({ cwd: root, packageManager: vsce.PackageManager.None });
console.log(
  `[package] ${path.relative(process.cwd(), vsixPath)}: ${(statSync(vsixPath).size / 1024).toFixed(1)} KiB, ` +
    `${files.length} files, in ${Date.now() - started} ms`,
);
// The file list is for whoever audits the VSIX, not for every `npm start`: `--list` prints it.
if (listFiles) for (const f of files.sort()) console.log(`  ${f}`);
