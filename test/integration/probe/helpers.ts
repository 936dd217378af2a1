// Shared helpers for the probe integration tests: a real app process (test/fixtures/apps/probe-app.cjs,
// which loads the BUILT package), real sockets, the real client. Everything is bounded by timeouts
// and cleaned up by `cleanup()` in an `after` hook.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ProbeClient, type ProbeClientOptions } from '../../../runtime-probe/src/client/index';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  parseProbeMessage,
  type BusRecord,
  type ErrorMessage,
  type StreamMessage,
} from '../../../runtime-probe/src/protocol/index';
import { sleep, waitFor, withTimeout } from '../../support/wait';

export const ROOT = path.resolve(__dirname, '../../..');
export const FIXTURE_APP = path.join(ROOT, 'test/fixtures/apps/probe-app.cjs');
export const CLI = path.join(ROOT, 'runtime-probe/dist/cli.cjs');

if (!fs.existsSync(path.join(ROOT, 'runtime-probe/dist/index.cjs'))) {
  throw new Error('runtime-probe/dist is missing: run `npm run build` first (npm test does it)');
}

const cleanups: (() => void | Promise<void>)[] = [];

/** Registers something to undo in `cleanup()`. */
export function onCleanup(fn: () => void | Promise<void>): void {
  cleanups.push(fn);
}

export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => void | Promise<void>;
    try {
      await fn();
    } catch {
      // keep cleaning
    }
  }
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export { sleep, waitFor, withTimeout };

export interface Endpoint {
  host: string;
  port: number;
  token: string;
}

export interface ProbeInfoLike extends Endpoint {
  discoveryFile: string | null;
}

export interface App {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly info: ProbeInfoLike | null;
  readonly stderr: () => string;
  call<T = unknown>(cmd: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Resolves with the exit code / signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly events: { event: string }[];
}

export interface SpawnOptions {
  /** probe.start() options, or 'none'. */
  readonly start?: Record<string, unknown> | 'none';
  readonly env?: NodeJS.ProcessEnv;
}

export async function spawnApp(options: SpawnOptions = {}): Promise<App> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BUSSCOPE: undefined,
    BUSSCOPE_RECORD: undefined,
    FIXTURE_START: options.start === 'none' ? 'none' : JSON.stringify(options.start ?? { discovery: false }),
    ...options.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = fork(FIXTURE_APP, [], { env, execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await withTimeout(exited, 5000, 'app exit after SIGKILL').catch(() => undefined);
    }
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const events: { event: string }[] = [];
  let nextId = 1;
  let ready: (m: { info: ProbeInfoLike | null; pid: number }) => void;
  const readyP = new Promise<{ info: ProbeInfoLike | null; pid: number }>((r) => (ready = r));
  child.on('message', (m: { id?: number; ok?: boolean; result?: unknown; error?: string; event?: string; info?: ProbeInfoLike | null; pid?: number }) => {
    if (m.event === 'ready') ready({ info: m.info ?? null, pid: m.pid as number });
    else if (m.event !== undefined) events.push({ event: m.event });
    else if (m.id !== undefined) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.ok) p?.resolve(m.result);
      else p?.reject(new Error(`app command failed: ${m.error}`));
    }
  });
  const r = await withTimeout(
    Promise.race([readyP, exited.then((e) => Promise.reject(new Error(`app exited early (${JSON.stringify(e)}): ${stderr}`)))]),
    10_000,
    'app ready',
  );
  return {
    child,
    pid: r.pid,
    info: r.info,
    stderr: () => stderr,
    exited,
    events,
    call<T>(cmd: string, args?: Record<string, unknown>, timeoutMs = 10_000): Promise<T> {
      const id = nextId++;
      const p = new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, args });
      });
      return withTimeout(p, timeoutMs, `app command ${cmd}`);
    },
  };
}

/** A connected client that collects every message. */
export interface Collected {
  readonly client: ProbeClient;
  readonly messages: StreamMessage[];
  records(): BusRecord[];
}

export async function connect(info: Endpoint, extra: Partial<ProbeClientOptions> = {}): Promise<Collected> {
  const messages: StreamMessage[] = [];
  const client = await ProbeClient.connect({
    host: info.host,
    port: info.port,
    token: info.token,
    clientName: 'integration-test',
    timeoutMs: 5000,
    onMessage: (m) => messages.push(m),
    ...extra,
  });
  onCleanup(() => client.close());
  return {
    client,
    messages,
    records: () => messages.flatMap((m) => (m.type === 'records' ? m.records : [])),
  };
}

export interface RawResult {
  /** Control messages received before the probe closed the socket. */
  readonly messages: StreamMessage[];
  readonly closedAfterMs: number;
}

/** Opens a raw socket, sends `bytes` (if any), reads until the probe closes it. */
export function rawSession(port: number, bytes: Uint8Array | undefined, timeoutMs = 6000): Promise<RawResult> {
  return withTimeout(
    new Promise<RawResult>((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect({ host: '127.0.0.1', port });
      onCleanup(() => {
        socket.destroy();
      });
      const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
      const messages: StreamMessage[] = [];
      socket.on('connect', () => {
        if (bytes !== undefined) socket.write(bytes);
      });
      socket.on('data', (chunk: Buffer) => {
        frames.push(chunk);
        for (let f = frames.next(); f; f = frames.next()) {
          if (f.kind === FrameKind.Control) messages.push(parseProbeMessage(f.body));
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ messages, closedAfterMs: Date.now() - started }));
      socket.on('timeout', () => reject(new Error('raw socket timeout')));
    }),
    timeoutMs,
    'probe closing a raw connection',
  );
}

export function errorOf(result: RawResult): ErrorMessage | undefined {
  return result.messages.find((m): m is ErrorMessage => m.type === 'error');
}

/** A forked fixture app that says `ready` with its probe's info, then answers `run` commands (fixtures/apps/serve-commands.cjs). */
export interface RunApp<A, R> {
  readonly info: ProbeInfoLike;
  readonly stderr: () => string;
  readonly run: (args: A) => Promise<R>;
}

/**
 * Forks `file` (test/fixtures/apps) without the test's own probe settings (BUSSCOPE, BUSSCOPE_RECORD,
 * NODE_OPTIONS), waits for its `ready`, and killed at cleanup. `name` goes into timeout messages.
 */
export async function spawnRunApp<A, R>(file: string, name: string): Promise<RunApp<A, R>> {
  const env = { ...process.env };
  delete env.BUSSCOPE;
  delete env.BUSSCOPE_RECORD;
  delete env.NODE_OPTIONS;
  const child = fork(file, [], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const pending = new Map<number, (m: { ok: boolean; result?: unknown; error?: string }) => void>();
  let ready: (info: ProbeInfoLike) => void;
  const readyP = new Promise<ProbeInfoLike>((r) => (ready = r));
  child.on('message', (m: { event?: string; info?: ProbeInfoLike; id?: number; ok?: boolean; result?: unknown; error?: string }) => {
    if (m.event === 'ready' && m.info) ready(m.info);
    else if (m.id !== undefined) pending.get(m.id)?.({ ok: m.ok === true, result: m.result, error: m.error });
  });
  child.once('exit', (code) => {
    for (const p of pending.values()) p({ ok: false, error: `app exited (${code}): ${stderr}` });
  });
  const info = await withTimeout(readyP, 10_000, `${name} ready (stderr: ${stderr})`);
  let nextId = 1;
  return {
    info,
    stderr: () => stderr,
    run: (args) =>
      withTimeout(
        new Promise<R>((resolve, reject) => {
          const id = nextId++;
          pending.set(id, (m) => (m.ok ? resolve(m.result as R) : reject(new Error(m.error))));
          child.send({ id, cmd: 'run', args });
        }),
        20_000,
        'app run',
      ),
  };
}
