// tsc --noEmit, strict, once per part: each part has its own lib/types so the probe cannot
// silently use the DOM and the model cannot silently use `vscode`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
let failed = 0;
for (const project of ['runtime-probe', 'extension', 'webview', 'test', 'test/vscode']) {
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, project, 'tsconfig.json'), '--noEmit'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`typecheck failed: ${project}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
