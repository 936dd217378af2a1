// The README's first command after install: build every part, package the VSIX, then run the demo
// app with the probe on so it can be attached to from VS Code (Ctrl+C stops it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

function must(title, args) {
  console.log(`\n[busscope] ${title}`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// The full build first (the probe package with its .d.ts), so that `npm run typecheck`, `npm pack -w
// runtime-probe` and `npx busscope` work right after this command; packaging then adds the VSIX's
// minified bundles next to it.
must('build', ['scripts/build.mjs']);
must('package the VSIX', ['scripts/package.mjs']);
const vsix = path.join(root, `busscope-${version}.vsix`);
console.log(`
[busscope] What next
  1. install the extension:  code --install-extension ${path.relative(process.cwd(), vsix)}
     then in VS Code run "Busscope: Attach to Running App…" and pick "busscope-demo"
  2. or, from another terminal:  npx busscope list   then   npx busscope tail <pid>`);

const demo = path.join(root, 'runtime-probe/dist/demo.cjs');
if (!existsSync(demo)) {
  console.error('[busscope] demo app was not built: runtime-probe/dist/demo.cjs is missing');
  process.exit(1);
}
console.log('\n[busscope] running the demo app with the probe on (Ctrl+C to stop)\n');
const child = spawn(process.execPath, ['--enable-source-maps', demo, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, BUSSCOPE: '1' },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
