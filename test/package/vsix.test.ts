// The VSIX a user installs: `npm run package` (reused when busscope-<version>.vsix is newer than its
// sources) holds only the bundles, media, README, LICENSE, the manifest and the demo app — no sources,
// source maps, tests or node_modules, except the demo's own map and TypeScript (so its subscribe sites
// open in the editor) — within the size budget, and its bundles need nothing but
// `vscode` and Node's built-ins (so packing with --no-dependencies is safe).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { before, test } from 'node:test';
import { ensureBusscopeVsix, listZipEntries, readZipEntry, repoRoot, type ZipEntry } from '../support/vscode-server';

/** Size budget: the .vsix file. Bundled extension + d3 webview + demo stay far below; screenshots in
 * media/ are what could push it. */
const MAX_VSIX_BYTES = 2 * 1024 * 1024;
/** And everything unpacked, as it lands in the user's extensions folder. */
const MAX_UNPACKED_BYTES = 6 * 1024 * 1024;

/** Every file allowed in the VSIX (paths inside the zip). */
const ALLOWED = [
  /^\[Content_Types\]\.xml$/,
  /^extension\.vsixmanifest$/,
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/,
  /^extension\/changelog\.md$/,
  /^extension\/LICENSE\.txt$/,
  /^extension\/dist\/extension\.js$/,
  /^extension\/dist\/webview\/[\w./-]+\.(js|css|html|svg|png|woff2?|ttf)$/,
  /^extension\/dist\/demo\/demo\.cjs$/,
  // The probe's register script, injected into Node debug launches (NODE_OPTIONS=--require).
  /^extension\/dist\/probe\/register\.cjs$/,
  // The demo's source map and the TypeScript it names (the demo and the probe code it bundles, plus
  // the files they import for types), copied under dist/demo/ by scripts/package.mjs: with them the
  // demo (run with --enable-source-maps) reports subscribe sites such as
  // dist/demo/runtime-probe/src/demo/hud.ts:26 that exist after install, open in the editor and
  // type-check there (the README's first run: a warning's source link opens the demo's code).
  /^extension\/dist\/demo\/demo\.cjs\.map$/,
  /^extension\/dist\/demo\/runtime-probe\/src\/[\w./-]+\.ts$/,
  /^extension\/media\/[\w./-]+\.(png|svg|gif|jpg)$/,
];
const FORBIDDEN = [
  /\.map$/,
  /\.tsx?$/,
  /node_modules\//,
  /\/src\//,
  /(^|\/)test\//,
  /\.test-output/,
  /(^|\/)scripts\//,
  /(^|\/)bench\//,
  /tsconfig/,
  /package-lock\.json$/,
  /\.vscodeignore$/,
  /\.vsix$/,
  /\.mjs$/,
];
/** The demo's map and sources (see ALLOWED) are the one exception to FORBIDDEN. */
const DEMO_SOURCES = [/^extension\/dist\/demo\/demo\.cjs\.map$/, /^extension\/dist\/demo\/runtime-probe\/src\/[\w./-]+\.ts$/];

let vsix = '';
let entries: ZipEntry[] = [];
const names = (): string[] => entries.map((e) => e.name);

before(async () => {
  vsix = await ensureBusscopeVsix((m) => process.stderr.write(`[vsix test] ${m}\n`));
  entries = listZipEntries(vsix);
});

test('the VSIX holds only bundles, media, README, LICENSE, manifest and demo', () => {
  const unexpected = names().filter((n) => !ALLOWED.some((re) => re.test(n)));
  assert.deepEqual(unexpected, [], `files that should not be in ${path.basename(vsix)}`);
  const forbidden = names().filter((n) => FORBIDDEN.some((re) => re.test(n)) && !DEMO_SOURCES.some((re) => re.test(n)));
  assert.deepEqual(forbidden, [], 'sources, maps, tests, scripts or node_modules in the VSIX');
  for (const required of [
    'extension/package.json',
    'extension/readme.md',
    'extension/LICENSE.txt',
    'extension/dist/extension.js',
    'extension/dist/webview/main.js',
    'extension/media/icon.png',
  ]) {
    assert.ok(names().includes(required), `${required} is missing; the VSIX has ${names().join(', ')}`);
  }
});

test('the demo app is in the VSIX once the probe has one', () => {
  const hasDemoSource = existsSync(path.join(repoRoot, 'runtime-probe', 'src', 'demo', 'main.ts'));
  assert.equal(
    names().includes('extension/dist/demo/demo.cjs'),
    hasDemoSource,
    hasDemoSource ? 'runtime-probe has a demo app but the VSIX does not carry dist/demo/demo.cjs' : 'a demo bundle without a demo source',
  );
});

test('the register script is in the VSIX (debugged apps need no busscope-probe of their own)', () => {
  assert.ok(
    names().includes('extension/dist/probe/register.cjs'),
    'the VSIX does not carry dist/probe/register.cjs, which debug launches load through NODE_OPTIONS',
  );
});

test("the demo's source map names only files the VSIX ships (its sites open after install)", (t) => {
  if (!names().includes('extension/dist/demo/demo.cjs')) return t.skip('no demo in this VSIX');
  const map = JSON.parse(readZipEntry(vsix, 'extension/dist/demo/demo.cjs.map').toString('utf8')) as { sources: string[] };
  const targets = map.sources.map((s) => path.posix.join('extension/dist/demo', s));
  assert.ok(targets.includes('extension/dist/demo/runtime-probe/src/demo/hud.ts'), `the map does not name the demo's hud.ts: ${map.sources.join(', ')}`);
  const missing = targets.filter((p) => !names().includes(p));
  assert.deepEqual(missing, [], 'sources named by dist/demo/demo.cjs.map but not in the VSIX');
  // The bus's frames keep a runtime-probe/src/bus/ path: that is how the probe knows to skip them.
  assert.ok(
    targets.some((p) => p.startsWith('extension/dist/demo/runtime-probe/src/bus/')),
    'the bus is not mapped under runtime-probe/src/bus/',
  );
  // Shipped sources are the repo's files unchanged (a changed line would move every site).
  const hud = readZipEntry(vsix, 'extension/dist/demo/runtime-probe/src/demo/hud.ts').toString('utf8');
  assert.equal(hud, readFileSync(path.join(repoRoot, 'runtime-probe/src/demo/hud.ts'), 'utf8'));
  assert.match(readZipEntry(vsix, 'extension/dist/demo/demo.cjs').toString('utf8'), /\/\/# sourceMappingURL=demo\.cjs\.map\s*$/);
});

test('no bundle in the VSIX names a source map the VSIX does not ship', () => {
  const dangling = names()
    .filter((n) => /\.[cm]?js$/.test(n))
    .flatMap((n) => {
      const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readZipEntry(vsix, n).toString('utf8'));
      const target = m ? path.posix.join(path.posix.dirname(n), m[1]) : undefined;
      return target !== undefined && !names().includes(target) ? [`${n} → ${m?.[1]}`] : [];
    });
  assert.deepEqual(dangling, []);
});

test(`the VSIX stays within its size budget (${MAX_VSIX_BYTES / 1024 / 1024} MiB packed, ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB unpacked)`, () => {
  const packed = statSync(vsix).size;
  const unpacked = entries.reduce((sum, e) => sum + e.size, 0);
  const biggest = [...entries]
    .sort((a, b) => b.size - a.size)
    .slice(0, 5)
    .map((e) => `${e.name} ${e.size}`)
    .join(', ');
  assert.ok(packed <= MAX_VSIX_BYTES, `${path.basename(vsix)} is ${packed} bytes (biggest: ${biggest})`);
  assert.ok(unpacked <= MAX_UNPACKED_BYTES, `unpacked ${unpacked} bytes (biggest: ${biggest})`);
});

test('the packaged manifest is complete: main, icon, engine, categories, repository, activation', () => {
  const manifest = JSON.parse(readZipEntry(vsix, 'extension/package.json').toString('utf8')) as {
    main?: string;
    icon?: string;
    engines?: { vscode?: string };
    categories?: string[];
    repository?: unknown;
    activationEvents?: string[];
    publisher?: string;
    name?: string;
  };
  assert.equal(`${manifest.publisher}.${manifest.name}`, 'busscope.busscope');
  assert.ok(manifest.main && names().includes(`extension/${manifest.main.replace(/^\.\//, '')}`), `main ${manifest.main} is not in the VSIX`);
  assert.ok(manifest.icon && names().includes(`extension/${manifest.icon}`), `icon ${manifest.icon} is not in the VSIX`);
  assert.match(manifest.engines?.vscode ?? '', /^\^1\.\d+\.\d+$/);
  assert.ok((manifest.categories ?? []).length > 0, 'no categories');
  assert.ok(manifest.repository, 'no repository');
  assert.ok(!(manifest.activationEvents ?? []).includes('*'), "'*' activation slows every VS Code start");
});

test('the icon is a 128x128 PNG', () => {
  const png = readZipEntry(vsix, 'extension/media/icon.png');
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.toString('ascii', 12, 16), 'IHDR');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
});

test('the bundles need nothing but vscode and Node built-ins (nothing left in node_modules)', () => {
  const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  for (const name of names().filter((n) => /^extension\/dist\/(extension\.js|demo\/demo\.cjs|probe\/register\.cjs)$/.test(n))) {
    const code = readZipEntry(vsix, name).toString('utf8');
    const required = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    const external = [...new Set(required.filter((r) => r !== 'vscode' && !builtins.has(r)))];
    assert.deepEqual(external, [], `${name} requires modules that are not bundled`);
  }
});
