// `npm run test:vscode-electron`: runs the same mocha suite in a desktop VS Code downloaded by
// @vscode/test-electron, with the working tree's extension under development (build it first:
// `npm run build`). NOT runnable on the project's own machines, which cannot download VS Code
// (see the notes on running VS Code here); there the suite runs inside code-server through the harness
// extension (test/e2e/vscode-server.test.ts). Set VSCODE_TEST_VERSION to pin a version (default: stable).
import { runTests } from '@vscode/test-electron';
import path from 'node:path';
import { bundleSuite, repoRoot } from '../vscode-harness/build';

async function main(): Promise<void> {
  const outDir = path.join(repoRoot, '.test-output', 'vscode-electron');
  const suite = path.join(outDir, 'suite.js');
  await bundleSuite(path.join(repoRoot, 'test', 'vscode', 'electron-main.ts'), suite);
  await runTests({
    version: process.env.VSCODE_TEST_VERSION || 'stable',
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: suite,
    launchArgs: ['--disable-extensions', '--disable-workspace-trust', '--user-data-dir', path.join(outDir, 'user-data')],
  });
}

main().catch((e: unknown) => {
  console.error(`[vscode suite] failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
