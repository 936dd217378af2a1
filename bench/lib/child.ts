// What the process benches share: a forked TypeScript child driven by one-reply-per-command IPC, and
// the `median (p10–p90)` spread they report per-process figures with.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A forked TypeScript child (a file in bench/) driven by one-reply-per-command IPC. */
export class Child<C, R extends { type: string }> {
  private readonly child: ChildProcess;
  private waiting: ((reply: R | { type: 'error'; message: string }) => void)[] = [];
  /** `execArgv`: extra Node flags for the child (e.g. a CPU profile). */
  constructor(file: string, execArgv: readonly string[] = []) {
    const env = { ...process.env };
    // The child starts its own probe when told to: none from the bench's environment.
    delete env.BUSSCOPE;
    delete env.BUSSCOPE_RECORD;
    this.child = fork(path.join(benchDir, file), [], {
      cwd: path.resolve(benchDir, '..'),
      env,
      execArgv: ['--import', 'tsx', ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (r: R) => this.waiting.shift()?.(r));
    this.child.on('exit', (code) => {
      for (const w of this.waiting) w({ type: 'error', message: `${file} exited (${code})` });
      this.waiting = [];
    });
  }
  async ask<T extends R['type']>(command: C, type: T): Promise<Extract<R, { type: T }>> {
    const reply = await new Promise<R | { type: 'error'; message: string }>((resolve) => {
      this.waiting.push(resolve);
      this.child.send(command as object);
    });
    if (reply.type === 'error') throw new Error(`bench child: ${(reply as { message: string }).message}`);
    if (reply.type !== type) throw new Error(`bench child: expected ${type}, got ${reply.type}`);
    return reply as Extract<R, { type: T }>;
  }
  /** Sends the exit command; kills the child if it has not exited within 3 s. */
  async exit(command: C): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send(command as object);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** The value at fraction `p` (0…1) of the sorted values (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((s.length - 1) * p)))] ?? NaN;
}

/** `median (p10–p90 low–high)`, each figure written by `f`. */
export function spread(values: readonly number[], f: (x: number) => string): string {
  return `${f(median(values))} (p10–p90 ${f(percentile(values, 0.1))}–${f(percentile(values, 0.9))})`;
}
