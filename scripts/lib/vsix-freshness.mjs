// Whether busscope-<version>.vsix is newer than everything that goes into it: the test command packages
// it before the tests when it is not (scripts/test.mjs), and the tests reuse it
// (test/support/vscode-server/vsix.ts), so no test rebuilds dist/ while others read it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Everything whose change makes a packaged VSIX stale. */
export const PACKAGE_INPUTS = [
  'package.json',
  '.vscodeignore',
  'README.md',
  'LICENSE',
  'media',
  'extension/src',
  'webview/src',
  'runtime-probe/src',
  'runtime-probe/package.json',
  'scripts/build.mjs',
  'scripts/package.mjs',
];

export function busscopeVsixPath(root) {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return path.join(root, `busscope-${version}.vsix`);
}

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs; // a deleted file changes its folder's mtime
  for (const name of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

export function isVsixFresh(root, vsix = busscopeVsixPath(root)) {
  if (!existsSync(vsix)) return false;
  const built = statSync(vsix).mtimeMs;
  return PACKAGE_INPUTS.every((p) => newestMtime(path.join(root, p)) < built);
}
