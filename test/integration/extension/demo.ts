// Runs the real demo app (runtime-probe/dist/demo.cjs, built by `npm run build`) with the probe on,
// in a private discovery directory, and cleans up after itself. Shared by the session tests.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sleep, waitFor } from '../../support/wait';

export const ROOT = path.resolve(__dirname, '../../..');
export const DEMO = path.join(ROOT, 'runtime-probe/dist/demo.cjs');

if (!fs.existsSync(DEMO)) throw new Error('runtime-probe/dist/demo.cjs is missing: run `npm run build` first (npm test does it)');

export interface DemoOptions {
  readonly discoveryDir: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

const children = new Set<ChildProcess>();

/** Starts the demo with BUSSCOPE=1 (or other env); killed by `stopAll` if still running. */
export function startDemo(options: DemoOptions): ChildProcess {
  const child = spawn(process.execPath, [DEMO, ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_DEMO_QUIET: '1', BUSSCOPE_DISCOVERY_DIR: options.discoveryDir, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.resume();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function stopAll(): Promise<void> {
  const waits = [...children].map((c) => {
    c.kill('SIGKILL');
    return exited(c);
  });
  await Promise.all(waits);
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export { sleep, waitFor };

export function nextEvent<T>(subscribe: (listener: (value: T) => void) => { dispose(): void }, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      handle.dispose();
      reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
    }, ms);
    const handle = subscribe((value) => {
      clearTimeout(timer);
      handle.dispose();
      resolve(value);
    });
  });
}
