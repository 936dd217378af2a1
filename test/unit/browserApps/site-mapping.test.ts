// A browser app's sites are dev-server URLs (`http://localhost:5173/src/app.ts`): they open (and
// show in Problems) as the workspace file the dev server serves. Only loopback hosts, only the
// path — a page can never make the extension reach a remote or network file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { devServerPath, localSourcePath, resolveSourcePath } from '../../../extension/src/inspector/sourcePath';

const files = new Set(['/ws/src/app.ts', '/ws/src/my widget.ts', '/abs/lib/x.ts']);
const exists = (p: string): boolean => files.has(p);

test('a loopback dev-server URL maps to the workspace file it serves (query and hash dropped)', () => {
  assert.deepEqual(resolveSourcePath('http://localhost:5173/src/app.ts?t=1712345', ['/other', '/ws'], exists), { path: '/ws/src/app.ts' });
  assert.deepEqual(resolveSourcePath('http://127.0.0.1:3000/src/my%20widget.ts#x', ['/ws'], exists), { path: '/ws/src/my widget.ts' });
  assert.deepEqual(resolveSourcePath('https://[::1]:8443/src/app.ts', ['/ws'], exists), { path: '/ws/src/app.ts' });
  // Vite's /@fs/ prefix names an absolute file.
  assert.deepEqual(resolveSourcePath('http://localhost:5173/@fs/abs/lib/x.ts', ['/ws'], exists), { path: '/abs/lib/x.ts' });
  assert.ok('error' in resolveSourcePath('http://localhost:5173/src/none.ts', ['/ws'], exists));
});

test('other hosts, network paths and escapes stay refused', () => {
  assert.equal(devServerPath('https://evil.example/src/app.ts'), undefined);
  assert.ok('error' in localSourcePath('https://evil.example/src/app.ts'));
  assert.ok('error' in localSourcePath('http://localhost.evil.example:5173/src/app.ts'));
  const touched: string[] = [];
  const r = resolveSourcePath('http://localhost:5173/@fs//attacker/share/x.ts', ['/ws'], (p) => (touched.push(p), true));
  assert.ok('error' in r && /network path/.test(r.error));
  assert.deepEqual(touched, []);
  // `..` is resolved by the URL parser: the path stays inside the workspace folder.
  assert.deepEqual(resolveSourcePath('http://localhost:5173/../../ws/src/app.ts', ['/'], exists), { path: '/ws/src/app.ts' });
  assert.equal(devServerPath('http://localhost:5173/'), undefined);
});
