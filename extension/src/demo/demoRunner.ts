// *Busscope: Run Demo App*: finds the demo shipped with the extension and runs it with the probe on,
// tracks it, and stops it (SIGTERM, then SIGKILL) on request or when the extension deactivates.
// No `vscode` here.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Emitter } from '../../../runtime-probe/src/delegates/index';

/**
 * Where the demo is: the setting's path when given; else `dist/demo/demo.cjs` inside the installed
 * extension (scripts/package.mjs copies it there) or `runtime-probe/dist/demo.cjs` (a development
 * checkout, after `npm run build`), the newer when both exist (a checkout that was packaged once
 * keeps a stale copy in dist/demo). Undefined when none exists.
 */
export function locateDemo(extensionPath: string, override?: string): string | undefined {
  const candidates =
    override !== undefined && override !== ''
      ? [path.resolve(extensionPath, override)]
      : [path.join(extensionPath, 'dist', 'demo', 'demo.cjs'), path.join(extensionPath, 'runtime-probe', 'dist', 'demo.cjs')];
  let best: { file: string; mtimeMs: number } | undefined;
  for (const file of candidates) {
    try {
      const st = fs.statSync(file);
      if (st.isFile() && (best === undefined || st.mtimeMs > best.mtimeMs)) best = { file, mtimeMs: st.mtimeMs };
    } catch {
      // not there
    }
  }
  return best?.file;
}

export interface DemoStartOptions {
  readonly script: string;
  /** Node executable; default this process's (VS Code's extension host, run as plain Node). */
  readonly runtime?: string;
  /** Passed as BUSSCOPE_DISCOVERY_DIR when set. */
  readonly discoveryDirectory?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Extra environment (tests). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface DemoExit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when it was stopped through `stop()` (not a crash). */
  readonly stopped: boolean;
}

export class DemoRunner {
  private child: ChildProcess | undefined;
  private stopping = false;
  private readonly output = new Emitter<string>();
  /** Lines the demo prints (stdout and stderr). */
  readonly onOutput = this.output.event;
  private readonly exitEmitter = new Emitter<DemoExit>();
  readonly onDidExit = this.exitEmitter.event;
  private readonly startEmitter = new Emitter<number>();
  readonly onDidStart = this.startEmitter.event;

  get running(): boolean {
    return this.child !== undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the demo (one at a time); returns its pid. Throws when it cannot be spawned. */
  start(options: DemoStartOptions): Promise<number> {
    if (this.child !== undefined) return Promise.reject(new Error(`the demo app is already running (pid ${this.child.pid})`));
    if (!fs.existsSync(options.script)) return Promise.reject(new Error(`the demo app is missing: ${options.script}`));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // VS Code's desktop runtime is Electron: make it behave as plain Node for the child.
      ELECTRON_RUN_AS_NODE: '1',
      BUSSCOPE: '1',
      ...(options.discoveryDirectory !== undefined && options.discoveryDirectory !== '' ? { BUSSCOPE_DISCOVERY_DIR: options.discoveryDirectory } : {}),
      ...options.env,
    };
    // Source maps make subscribe sites point at the demo's TypeScript when its map is present.
    const child = spawn(options.runtime ?? process.execPath, ['--enable-source-maps', options.script, ...(options.args ?? [])], {
      cwd: options.cwd ?? path.dirname(options.script),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    this.stopping = false;
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (text: string) => {
        pending += text;
        const lines = pending.split(/\r?\n/);
        pending = lines.pop() ?? '';
        for (const line of lines) this.output.fire(line);
        // Bounded: a line without a newline cannot grow without limit.
        if (pending.length > 64 * 1024) {
          this.output.fire(pending);
          pending = '';
        }
      });
    }
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        this.startEmitter.fire(child.pid as number);
        resolve(child.pid as number);
      });
      child.once('error', (error) => {
        if (this.child === child) this.child = undefined;
        reject(error);
      });
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        this.exitEmitter.fire({ pid: child.pid ?? 0, code, signal, stopped: this.stopping });
      });
    });
  }

  /** Stops the demo: SIGTERM (it removes its discovery file), SIGKILL after `graceMs`. Resolves when it has exited. */
  stop(graceMs = 2000): Promise<void> {
    const child = this.child;
    if (child === undefined) return Promise.resolve();
    this.stopping = true;
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  dispose(): Promise<void> {
    const stopped = this.stop();
    this.output.dispose();
    this.startEmitter.dispose();
    // The exit emitter stays until the child is gone, so the last exit is still reported.
    return stopped.then(() => this.exitEmitter.dispose());
  }
}
