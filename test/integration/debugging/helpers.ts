// A real debugger for the debugging tests: the fixture app (test/fixtures/apps/debug-app.cjs, the BUILT probe)
// runs under `node --inspect=127.0.0.1:0`, and the test speaks the Chrome DevTools Protocol to that
// inspector socket through fixtures/cdp-relay.mjs (Node's own WebSocket client). Everything is
// bounded by timeouts and registered for `cleanup()` (test/integration/probe/helpers.ts).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { onCleanup, withTimeout, type ProbeInfoLike } from '../probe/helpers';

export { cleanup, connect, onCleanup, sleep, tempDir, waitFor, withTimeout } from '../probe/helpers';

export const DEBUG_APP = path.join(__dirname, '../../fixtures/apps/debug-app.cjs');
const RELAY = path.join(__dirname, 'fixtures', 'cdp-relay.mjs');

export interface DebugApp {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly info: ProbeInfoLike | null;
  /** ws://… of the app's inspector when run with `inspect`. */
  readonly inspectorUrl: string | undefined;
  /** Sends a command; the answer waits while the app is paused, so the timeout should cover pauses. */
  call<T = unknown>(cmd: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface DebugAppOptions {
  /** Run under `--inspect=127.0.0.1:0`. */
  readonly inspect: boolean;
  /** How the fixture starts the probe (FIXTURE_PROBE). Default 'start'. */
  readonly probe?: 'start' | 'none' | 'env';
  readonly env?: NodeJS.ProcessEnv;
}

export async function spawnDebugApp(options: DebugAppOptions): Promise<DebugApp> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BUSSCOPE: undefined,
    BUSSCOPE_RECORD: undefined,
    NODE_OPTIONS: undefined,
    FIXTURE_PROBE: options.probe ?? 'start',
    ...options.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = fork(DEBUG_APP, [], {
    env,
    execArgv: options.inspect ? ['--inspect=127.0.0.1:0'] : [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  let inspectorUrl: string | undefined;
  let urlSeen: (url: string) => void = () => undefined;
  const urlP = new Promise<string>((r) => (urlSeen = r));
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    const m = /Debugger listening on (ws:\/\/\S+)/.exec(stderr);
    if (m !== null && inspectorUrl === undefined) {
      inspectorUrl = m[1];
      urlSeen(m[1]);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await withTimeout(exited, 5000, 'debug app exit').catch(() => undefined);
    }
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let ready: (m: { pid: number; info: ProbeInfoLike | null }) => void = () => undefined;
  const readyP = new Promise<{ pid: number; info: ProbeInfoLike | null }>((r) => (ready = r));
  child.on('message', (m: { id?: number; ok?: boolean; result?: unknown; error?: string; event?: string; pid?: number; info?: ProbeInfoLike | null }) => {
    if (m.event === 'ready') ready({ pid: m.pid as number, info: m.info ?? null });
    else if (m.id !== undefined) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.ok) p?.resolve(m.result);
      else p?.reject(new Error(`app command failed: ${m.error}`));
    }
  });
  const early = exited.then((e) => Promise.reject(new Error(`debug app exited early (${JSON.stringify(e)}): ${stderr}`)));
  const r = await withTimeout(Promise.race([readyP, early]), 15_000, 'debug app ready');
  if (options.inspect) await withTimeout(Promise.race([urlP, early]), 5000, 'the inspector URL on stderr');
  return {
    child,
    pid: r.pid,
    info: r.info,
    inspectorUrl,
    stderr: () => stderr,
    exited,
    call<T>(cmd: string, args?: Record<string, unknown>, timeoutMs = 15_000): Promise<T> {
      const id = nextId++;
      const p = new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, args });
      });
      return withTimeout(p, timeoutMs, `debug app command ${cmd}`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CDP

export interface CdpEvent {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface RemoteObject {
  readonly type: string;
  readonly subtype?: string;
  readonly value?: unknown;
  readonly objectId?: string;
  readonly description?: string;
}

export interface CallFrame {
  readonly callFrameId: string;
  readonly functionName: string;
  readonly url: string;
  readonly location: { readonly scriptId: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly scopeChain: readonly { readonly type: string; readonly object: RemoteObject }[];
}

export interface Paused {
  readonly reason: string;
  readonly callFrames: readonly CallFrame[];
}

export class Cdp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }>();
  /** Every event received, in order. */
  readonly events: CdpEvent[] = [];
  private waiters: (() => void)[] = [];
  private closedReason: string | undefined;

  private constructor(private readonly relay: ChildProcess) {
    relay.on(
      'message',
      (m: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: Record<string, unknown>; closed?: string }) => {
        if (m.closed !== undefined) {
          this.closedReason = m.closed;
          for (const p of this.pending.values()) p.reject(new Error(`CDP connection closed: ${m.closed}`));
          this.pending.clear();
        } else if (m.id !== undefined) {
          const p = this.pending.get(m.id);
          this.pending.delete(m.id);
          if (m.error !== undefined) p?.reject(new Error(`${p.method}: ${m.error.message ?? JSON.stringify(m.error)}`));
          else p?.resolve(m.result);
        } else if (m.method !== undefined) {
          this.events.push({ method: m.method, params: m.params ?? {} });
        }
        const w = this.waiters;
        this.waiters = [];
        for (const f of w) f();
      },
    );
  }

  /** Connects a debugger to the app's inspector socket. */
  static async connect(url: string): Promise<Cdp> {
    const major = Number(process.versions.node.split('.')[0]);
    const relay = spawn(process.execPath, [...(major < 22 ? ['--experimental-websocket'] : []), RELAY, url], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    relay.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((r) => relay.once('exit', () => r()));
    onCleanup(async () => {
      if (relay.exitCode === null && relay.signalCode === null) {
        relay.kill('SIGKILL');
        await withTimeout(exited, 5000, 'CDP relay exit').catch(() => undefined);
      }
    });
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        relay.on('message', (m: { ready?: boolean; closed?: string }) => {
          if (m.ready === true) resolve();
          else if (m.closed !== undefined) reject(new Error(`CDP relay: ${m.closed}`));
        });
        relay.once('exit', (code) => reject(new Error(`CDP relay exited (${code}): ${stderr}`)));
      }),
      10_000,
      'CDP relay connected',
    );
    return new Cdp(relay);
  }

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<T> {
    if (this.closedReason !== undefined) return Promise.reject(new Error(`CDP connection closed: ${this.closedReason}`));
    const id = this.nextId++;
    const p = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      this.relay.send({ id, method, params });
    });
    return withTimeout(p, timeoutMs, `CDP ${method}`);
  }

  /** Events of one kind received so far. */
  eventsOf(method: string): CdpEvent[] {
    return this.events.filter((e) => e.method === method);
  }

  /** Resolves with the `index`-th event of `method` (0-based, counting from the connection's start). */
  async nth(method: string, index: number, timeoutMs = 10_000): Promise<CdpEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.eventsOf(method)[index];
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${method} #${index + 1} (got ${this.eventsOf(method).length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The `index`-th pause (0-based). */
  async pause(index: number, timeoutMs = 10_000): Promise<Paused> {
    return (await this.nth('Debugger.paused', index, timeoutMs)).params as unknown as Paused;
  }

  get pauses(): number {
    return this.eventsOf('Debugger.paused').length;
  }

  /** The URL of a frame's script (V8 leaves `CallFrame.url` empty; `Debugger.scriptParsed` names it). */
  scriptUrl(frame: CallFrame): string {
    const parsed = this.eventsOf('Debugger.scriptParsed').find((e) => e.params.scriptId === frame.location.scriptId);
    return typeof parsed?.params.url === 'string' ? parsed.params.url : '';
  }

  /** Evaluates on a paused frame; returns the value (returnByValue). Throws on an exception. */
  async evaluateOnFrame<T = unknown>(frame: CallFrame, expression: string): Promise<T> {
    const r = await this.send<{ result: RemoteObject; exceptionDetails?: { text: string; exception?: RemoteObject } }>('Debugger.evaluateOnCallFrame', {
      callFrameId: frame.callFrameId,
      expression,
      returnByValue: true,
    });
    if (r.exceptionDetails !== undefined)
      throw new Error(`evaluating ${expression.slice(0, 80)}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  /** Evaluates in the global context (while running or paused). */
  async evaluate<T = unknown>(expression: string): Promise<T> {
    const r = await this.send<{ result: RemoteObject; exceptionDetails?: { text: string; exception?: RemoteObject } }>('Runtime.evaluate', {
      expression,
      returnByValue: true,
    });
    if (r.exceptionDetails !== undefined)
      throw new Error(`evaluating ${expression.slice(0, 80)}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  /** The local variables of a frame, as JSON-able values (objects through JSON.stringify in the app). */
  async locals(frame: CallFrame): Promise<Record<string, unknown>> {
    const local = frame.scopeChain.find((s) => s.type === 'local');
    if (local?.object.objectId === undefined) return {};
    const props = await this.send<{ result: { name: string; value?: RemoteObject }[] }>('Runtime.getProperties', {
      objectId: local.object.objectId,
      ownProperties: true,
    });
    const out: Record<string, unknown> = {};
    for (const p of props.result) {
      const v = p.value;
      if (v === undefined) continue;
      if (v.objectId !== undefined && v.type === 'object' && v.subtype !== 'null') {
        const json = await this.send<{ result: RemoteObject }>('Runtime.callFunctionOn', {
          objectId: v.objectId,
          functionDeclaration: 'function () { try { return JSON.stringify(this); } catch (e) { return undefined; } }',
          returnByValue: true,
        });
        out[p.name] = typeof json.result.value === 'string' ? JSON.parse(json.result.value) : undefined;
      } else out[p.name] = v.value;
    }
    return out;
  }

  close(): void {
    if (this.relay.connected) this.relay.disconnect();
  }
}

/** Starts the app under the inspector and attaches a debugger that has the Debugger domain on. */
export async function debuggedApp(options: Omit<DebugAppOptions, 'inspect'> = {}): Promise<{ app: DebugApp; cdp: Cdp }> {
  const app = await spawnDebugApp({ ...options, inspect: true });
  const cdp = await Cdp.connect(app.inspectorUrl as string);
  onCleanup(() => cdp.close());
  await cdp.send('Runtime.enable');
  await cdp.send('Debugger.enable');
  return { app, cdp };
}
