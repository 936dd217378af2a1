// Event breakpoints in worker threads (issue 16): the probe runs in this (main) thread, real
// worker_threads load the built package, a real ProbeClient sets `breakOn` over the probe's socket,
// and a real debugger reaches the workers the way js-debug does: a CDP session on this thread's
// inspector, `NodeWorker.enable`, then the Debugger domain of each worker through
// `NodeWorker.sendMessageToWorker`. A stop is a `Debugger.paused` of the worker: its frames are
// checked with the extension's own dispatching-frame rule, its event break read from the worker's hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import inspector from 'node:inspector';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import { ProbeClient, probe } from '../../../runtime-probe/src/index';
import { dispatchingFrame, type DapStackFrame } from '../../../extension/src/debugging/dispatchingFrame';
import { installConditionsExpression } from '../../../extension/src/debugging/conditions';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/break-worker.cjs');
const dispatchLine =
  fs
    .readFileSync(workerFile, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('// DISPATCH')) + 1;

interface CdpCallFrame {
  readonly callFrameId: string;
  readonly functionName: string;
  readonly location: { readonly scriptId: string; readonly lineNumber: number; readonly columnNumber: number };
}

/** One stop of a worker, as the debugger saw it. */
interface WorkerStop {
  readonly workerUrl: string;
  readonly reason: string;
  /** `hook.current` of the worker's event-break hook (bus, type, payload), read on the top frame. */
  readonly hit: { bus: string; type: string; payload: unknown } | null;
  /** The worker hook's `errors()`: type → why its condition threw. */
  readonly conditionErrors: Record<string, string>;
  /** The frame the extension focuses (dispatchingFrame.ts over these frames). */
  readonly dispatching: DapStackFrame | undefined;
}

/** A debugger of this process's workers over CDP (the NodeWorker domain js-debug uses). */
class WorkerDebugger {
  private readonly session = new inspector.Session();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly workers = new Map<string, string>(); // CDP sessionId → worker url
  readonly stops: WorkerStop[] = [];
  /** scriptId → url, per worker (CDP call frames name their script by id). */
  private readonly scripts = new Map<string, Map<string, string>>();

  constructor() {
    this.session.connect();
    this.session.on('NodeWorker.attachedToWorker', (m: { params: { sessionId: string; workerInfo: { url: string } } }) => {
      const { sessionId, workerInfo } = m.params;
      // Only the app's workers (the test runner's module-loader thread is one too).
      if (!workerInfo.url.endsWith('/break-worker.cjs')) return;
      this.workers.set(sessionId, workerInfo.url);
      this.scripts.set(sessionId, new Map());
      void (async () => {
        await this.send(sessionId, 'Runtime.enable');
        await this.send(sessionId, 'Debugger.enable');
        await this.send(sessionId, 'Runtime.runIfWaitingForDebugger');
      })();
    });
    this.session.on('NodeWorker.receivedMessageFromWorker', (m: { params: { sessionId: string; message: string } }) => {
      const message = JSON.parse(m.params.message) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown };
      if (message.id !== undefined) {
        const p = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error !== undefined) p?.reject(new Error(message.error.message));
        else p?.resolve(message.result);
      } else if (message.method === 'Debugger.scriptParsed') {
        const { scriptId, url } = message.params as { scriptId: string; url: string };
        this.scripts.get(m.params.sessionId)?.set(scriptId, url);
      } else if (message.method === 'Debugger.paused') {
        void this.paused(m.params.sessionId, message.params as { reason: string; callFrames: CdpCallFrame[] });
      }
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      this.session.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, (e) => (e === null ? resolve() : reject(e))),
    );
  }

  send(sessionId: string, method: string, params: object = {}): Promise<unknown> {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.session.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method, params }) });
    return answer;
  }

  private async paused(sessionId: string, p: { reason: string; callFrames: CdpCallFrame[] }): Promise<void> {
    try {
      const top = p.callFrames[0];
      const r = (await this.send(sessionId, 'Debugger.evaluateOnCallFrame', {
        callFrameId: top.callFrameId,
        expression:
          "(() => { const k = globalThis[Symbol.for('busscope.eventBreaks')]; const h = k.current; return { hit: h && { bus: h.bus, type: h.type, payload: h.payload }, errors: k.errors() }; })()",
        returnByValue: true,
      })) as { result: { value?: { hit: WorkerStop['hit']; errors: Record<string, string> } } };
      const scripts = this.scripts.get(sessionId);
      const frames: DapStackFrame[] = p.callFrames.map((f, i) => {
        const url = scripts?.get(f.location.scriptId) ?? '';
        return {
          id: i,
          name: f.functionName,
          line: f.location.lineNumber + 1,
          column: f.location.columnNumber + 1,
          source: { path: url.startsWith('file://') ? new URL(url).pathname : url },
        };
      });
      this.stops.push({
        workerUrl: this.workers.get(sessionId) ?? '',
        reason: p.reason,
        hit: r.result.value?.hit ?? null,
        conditionErrors: r.result.value?.errors ?? {},
        dispatching: dispatchingFrame(frames),
      });
    } finally {
      await this.send(sessionId, 'Debugger.resume');
    }
  }

  close(): void {
    this.session.disconnect();
  }
}

function spawn(label: string): { worker: Worker; ready: Promise<unknown> } {
  const worker = new Worker(workerFile, { workerData: { label }, execArgv: [] });
  const ready = new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', resolve);
  });
  return { worker, ready };
}

function dispatch(worker: Worker, type: string, payloads: unknown[]): Promise<unknown> {
  const answer = new Promise((resolve) => worker.once('message', resolve));
  worker.postMessage({ dispatch: type, payloads });
  return answer;
}

/** What the debugger does in the main thread: evaluate an expression there (indirect eval: global scope). */
function evaluateInMainThread(expression: string): unknown {
  return (0, eval)(expression);
}

/** The probe's channel to the workers is not ordered with the test's parentPort messages: let it deliver. */
const settle = (ms = 300): Promise<void> => new Promise((r) => setTimeout(r, ms));

test("breakOn set through the probe's socket stops a debugged worker's bus on that type only, at the worker's dispatch line, in workers created before and after it was set; payload conditions and mutes the debugger installs in the main thread hold in every worker", async () => {
  inspector.open(0, '127.0.0.1', false);
  const early = spawn('early');
  await early.ready;
  const info = await probe.start({ discovery: false, name: 'worker-breaks' });
  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000 });
  const debug = new WorkerDebugger();
  let late: ReturnType<typeof spawn> | undefined;
  let third: ReturnType<typeof spawn> | undefined;
  try {
    await debug.start();
    assert.deepEqual(await client.breakOn(['job.hit']), ['job.hit']);
    late = spawn('late');
    await late.ready;
    await settle();
    assert.equal(debug.workers.size, 2, 'the debugger is attached to both workers');

    for (const w of [early, late]) {
      await dispatch(w.worker, 'job.miss', [{ n: 0 }, { n: 1 }]);
      await dispatch(w.worker, 'job.hit', [{ n: 7 }]);
    }
    assert.equal(debug.stops.length, 2, `one stop per worker, on job.hit only: ${JSON.stringify(debug.stops.map((s) => s.hit))}`);
    assert.deepEqual(
      debug.stops.map((s) => s.hit),
      [
        { bus: 'break-early', type: 'job.hit', payload: { n: 7 } },
        { bus: 'break-late', type: 'job.hit', payload: { n: 7 } },
      ],
    );
    for (const stop of debug.stops) {
      assert.equal(stop.reason, 'other', 'stopped by a `debugger` statement');
      assert.equal(stop.dispatching?.source?.path, workerFile, "the focused frame is the worker's own file");
      assert.equal(stop.dispatching?.line, dispatchLine, 'at the line that dispatched');
      assert.equal(stop.dispatching?.name, 'dispatchAll');
    }

    // Payload conditions, installed by the debugger in the main thread as the extension does (evaluate of
    // the same expression): they hold in the workers too, also in one created afterwards.
    assert.equal(evaluateInMainThread(installConditionsExpression([{ type: 'job.hit', condition: 'payload.n > 2' }])), 'set:1');
    third = spawn('third');
    await third.ready;
    await settle();
    debug.stops.length = 0;
    await dispatch(early.worker, 'job.hit', [{ n: 1 }, { n: 3 }, { n: 2 }, { n: 4 }]);
    await dispatch(third.worker, 'job.hit', [{ n: 0 }, { n: 5 }]);
    assert.deepEqual(
      debug.stops.map((s) => [s.hit?.bus, s.hit?.payload]),
      [
        ['break-early', { n: 3 }],
        ['break-early', { n: 4 }],
        ['break-third', { n: 5 }],
      ],
    );
    // A condition that throws stops, and the worker's hook says why (what the paused view shows).
    evaluateInMainThread(installConditionsExpression([{ type: 'job.hit', condition: 'payload.missing.n > 2' }]));
    await settle();
    debug.stops.length = 0;
    await dispatch(late.worker, 'job.hit', [{ n: 1 }]);
    assert.equal(debug.stops.length, 1);
    assert.match(String(debug.stops[0].conditionErrors['job.hit']), /TypeError/);

    // Muted by the debugger (a breakpoint removed while paused): no worker stops, though breakOn still names it.
    evaluateInMainThread(installConditionsExpression([], ['job.hit']));
    await settle();
    debug.stops.length = 0;
    for (const w of [early, late, third]) await dispatch(w.worker, 'job.hit', [{ n: 9 }]);
    assert.equal(debug.stops.length, 0);
    evaluateInMainThread(installConditionsExpression([], []));
    await settle();

    // The breakpoint removed: it reaches the workers, nothing stops.
    assert.deepEqual(await client.breakOn([]), []);
    await settle();
    debug.stops.length = 0;
    await dispatch(early.worker, 'job.hit', [{ n: 9 }]);
    await dispatch(late.worker, 'job.hit', [{ n: 9 }]);
    await dispatch(third.worker, 'job.hit', [{ n: 9 }]);
    assert.equal(debug.stops.length, 0);
  } finally {
    debug.close();
    client.close();
    await early.worker.terminate();
    await late?.worker.terminate();
    await third?.worker.terminate();
    evaluateInMainThread(installConditionsExpression([], []));
    await probe.stop();
    inspector.close();
  }
});

test("a worker's bus does not break while no debugger can reach the process (no inspector open), even with breakOn set", async () => {
  assert.equal(inspector.url(), undefined);
  const w = spawn('closed');
  await w.ready;
  const info = await probe.start({ discovery: false, name: 'worker-breaks-closed' });
  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000 });
  // An in-process CDP session is attached to the worker, but the app opened no inspector: the gate stays shut.
  const debug = new WorkerDebugger();
  try {
    await debug.start();
    await client.breakOn(['job.hit']);
    await settle();
    assert.equal(debug.workers.size, 1);
    await dispatch(w.worker, 'job.hit', [{ n: 1 }, { n: 2 }]);
    assert.equal(debug.stops.length, 0);
  } finally {
    debug.close();
    client.close();
    await w.worker.terminate();
    await probe.stop();
  }
});
