// Builds the test harness extension into its own VSIX (.test-output/vscode-harness/), and bundles the
// VS Code mocha suite for @vscode/test-electron. Both bundles carry mocha and every
// test/vscode/**/*.test.ts (found at build time, so adding a test file is all it takes); `vscode` stays
// external (the extension host provides it).
//   node --import tsx test/vscode-harness/build.ts      → prints the harness VSIX path
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
const suiteDir = path.join(repoRoot, 'test', 'vscode');
const TESTS_MODULE = 'busscope:vscode-tests';

/** Every mocha test file of the VS Code suite, in path order. */
export function vscodeTestFiles(dir = suiteDir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...vscodeTestFiles(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

/** Resolves `busscope:vscode-tests` to a module whose default export `require`s each test file lazily. */
const testsModulePlugin: esbuild.Plugin = {
  name: 'busscope-vscode-tests',
  setup(build) {
    build.onResolve({ filter: /^busscope:vscode-tests$/ }, () => ({ path: TESTS_MODULE, namespace: 'busscope-tests' }));
    build.onLoad({ filter: /.*/, namespace: 'busscope-tests' }, () => {
      const files = vscodeTestFiles();
      const body = files.map((f) => `  require(${JSON.stringify(f)});`).join('\n');
      return {
        contents: `module.exports = function loadTests() {\n${body}\n};\nmodule.exports.default = module.exports;\n`,
        loader: 'js',
        resolveDir: repoRoot,
        watchFiles: files,
      };
    });
  },
};

const extensionHostBundle: esbuild.BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  logLevel: 'error',
};

/** Bundles an extension-host entry (CommonJS, Node, `vscode` external) with mocha and the tests. */
export async function bundleSuite(entry: string, outfile: string): Promise<void> {
  await esbuild.build({
    ...extensionHostBundle,
    entryPoints: [entry],
    outfile,
    sourcemap: 'inline',
    plugins: [testsModulePlugin],
    // Bundled, a test file no longer knows where it came from: the ones that run a fixture app of this
    // checkout (which loads the built package from runtime-probe/dist) find it through this constant.
    define: { BUSSCOPE_REPO_ROOT: JSON.stringify(repoRoot) },
  });
}

/** Packages the harness extension; returns the VSIX path. */
export async function buildHarnessVsix(outDir = path.join(repoRoot, '.test-output', 'vscode-harness')): Promise<string> {
  const pkgDir = path.join(outDir, 'pkg');
  rmSync(pkgDir, { recursive: true, force: true });
  mkdirSync(pkgDir, { recursive: true });
  cpSync(path.join(here, 'package.json'), path.join(pkgDir, 'package.json'));
  writeFileSync(path.join(pkgDir, '.vscodeignore'), '*.map\n');
  await esbuild.build({
    ...extensionHostBundle,
    entryPoints: [path.join(here, 'src', 'extension.ts')],
    outfile: path.join(pkgDir, 'dist', 'extension.js'),
    external: ['vscode', './suite.js'],
  });
  await bundleSuite(path.join(here, 'src', 'run.ts'), path.join(pkgDir, 'dist', 'suite.js'));
  const vsixPath = path.join(outDir, 'busscope-vscode-harness.vsix');
  rmSync(vsixPath, { force: true });
  const vsce = createRequire(import.meta.url)('@vscode/vsce') as typeof import('@vscode/vsce');
  // Test-only package: no repository, LICENSE or README, and no prompts about them (no TTY in CI).
  const log = console.log;
  console.log = () => {}; // vsce prints its file tree; the caller prints the path
  try {
    await vsce.createVSIX({ cwd: pkgDir, packagePath: vsixPath, dependencies: false, allowMissingRepository: true, skipLicense: true });
  } finally {
    console.log = log;
  }
  return vsixPath;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  buildHarnessVsix().then(
    (vsix) => console.log(`[vscode-harness] ${path.relative(process.cwd(), vsix)} (${vscodeTestFiles().length} test files, ${Date.now() - started} ms)`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
