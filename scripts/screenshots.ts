// Renders media/screenshots/emitters.png from a real app: starts scripts/screenshot-app/server.cjs
// with `node --require runtime-probe/dist/register.cjs` (every EventEmitter instrumented), records it
// with the real CLI (`busscope record`) while keep-alive clients in this process send requests,
// then opens the trace's messages in the built inspector webview (real Model, Analyzer, feed and
// host connection, in Debian's headless Chromium) and takes the screenshot.
//   node scripts/build.mjs && node --import tsx scripts/screenshots.ts [--media]
// Without --media it writes .test-output/webview/emitters-real.png.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTraceFileMessages } from '../runtime-probe/src/client/index';
import { launchChromium, openInspector, servePage } from '../test/webview/support/chromium';

const ROOT = path.resolve(path.dirname(fileURLToPath(`file://${__filename}`)), '..');
const REQUESTS = 240;
const CLIENT_SOCKETS = 6;
const work = mkdtempSync(path.join(tmpdir(), 'busscope-shots-'));
const env = { ...process.env, BUSSCOPE_DISCOVERY_DIR: path.join(work, 'apps') };
delete env.BUSSCOPE_REGISTER_ROOT;
delete env.NODE_OPTIONS;

function lineOf(
  child: import('node:child_process').ChildProcessWithoutNullStreams | import('node:child_process').ChildProcess,
): Promise<{ port: number; pid: number }> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += String(d);
      const i = buf.indexOf('\n');
      if (i >= 0) resolve(JSON.parse(buf.slice(0, i)));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before its first line`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(f: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const app = spawn(process.execPath, ['--require', path.join(ROOT, 'runtime-probe/dist/register.cjs'), path.join(ROOT, 'scripts/screenshot-app/server.cjs')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const trace = path.join(work, 'server.busscope');
  let recorder: ReturnType<typeof spawn> | undefined;
  try {
    const { port, pid } = await lineOf(app);
    const discovered = (): boolean => {
      try {
        return readdirSync(env.BUSSCOPE_DISCOVERY_DIR!).some((name) => name.includes(String(pid)));
      } catch {
        return false; // not created yet
      }
    };
    await until(discovered, 'the discovery file');
    recorder = spawn(
      process.execPath,
      [path.join(ROOT, 'runtime-probe/dist/cli.cjs'), 'record', String(pid), '-o', trace, '--detail', 'handlers', '--duration', '6'],
      { env, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const rec = recorder;
    const recorded = new Promise<number | null>((resolve) => rec.once('exit', resolve));
    await sleep(1500);
    // Keep-alive clients (this process, not instrumented): a few sockets, many requests each.
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENT_SOCKETS });
    const get = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: `/item/${Math.floor(Math.random() * 100)}`, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', reject);
      });
    for (let i = 0; i < REQUESTS; i += CLIENT_SOCKETS) {
      await Promise.all(Array.from({ length: CLIENT_SOCKETS }, get));
      await sleep(10);
    }
    agent.destroy();
    const code = await recorded;
    if (code !== 0) throw new Error(`busscope record exited with ${code}`);
  } finally {
    app.kill();
    recorder?.kill();
  }

  const messages = await readTraceFileMessages(trace);
  const server = await servePage();
  const browser = await launchChromium();
  try {
    const { page, errors } = await openInspector(
      browser,
      server,
      { scenario: 'trace', theme: 'dark' },
      { width: 1400, height: 860 },
      `window.busscopeTraceMessages = ${JSON.stringify(messages)};`,
    );
    if (process.env.KEEP === '1') await page.screenshot({ path: path.join(work, 'before.png') });
    // The libraries group stays collapsed, as a user first sees it: the app's own emitters on top.
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    await sleep(500);
    // media/ only when asked (the README's picture).
    const out = process.argv.includes('--media')
      ? path.join(ROOT, 'media/screenshots/emitters.png')
      : path.join(ROOT, '.test-output/webview/emitters-real.png');
    await page.screenshot({ path: out });
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    console.log(`wrote ${path.relative(ROOT, out)} from ${messages.length} messages of a real server`);
  } finally {
    await browser.close();
    await server.close();
    if (process.env.KEEP !== '1') rmSync(work, { recursive: true, force: true });
    else console.log(work);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
