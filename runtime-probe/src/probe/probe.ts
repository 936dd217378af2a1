// The probe: makes every bus of the process observable. `start()` serves clients on a loopback
// socket; `record(file)` writes the same stream to a trace file; `snapshot()` answers synchronously
// (a debugger can evaluate it while the app is paused). Nothing here ever throws into the app
// except TypeErrors for bad arguments: failures are reported once with console.warn.

import inspector from 'node:inspector';
import path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { runtime } from '../bus/runtime';
import type { ProducerDropReport } from '../bus/producer-inbox';
import { setBusTracer, primaryBusTracer } from '../bus/tracer';
import { onProcessExit, removeDiscoveryFile, writeDiscoveryFile } from '../discovery/index';
import { PROTOCOL_VERSION, encodeControlFrame, type ProbeSnapshot, type RecordingConfig, type WelcomeMessage } from '../protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../recorder/recorder';
import { parseStackLine } from '../recorder/frames';
import { buildSnapshot } from '../recorder/snapshot';
import { ProbeServer, encodeSnapshotFrame } from '../server/probe-server';
import { FileSink } from '../trace/file-sink';
import { mainThreadHub } from '../threads/thread-hub';
import { joinedWorkerForwarder } from '../threads/environment';
import type { WorkerForwarder } from '../threads/worker-forwarder';
import { watch as watchTarget, type WatchHandle, type WatchOptions } from '../emitters/watch';
import { installProcessWide, uninstallProcessWide } from '../emitters/process-wide';
import { appInfo, defaultAppName } from './app-info';
import { isLoopbackHost, resolveStartOptions, type ProbeStartOptions, type ResolvedStartOptions } from './options';
import { listenForMaxListenersWarnings } from './max-listeners-warning';
import { reportProbeFailure, reportProbeWarning } from './report';
import { PROBE_VERSION } from './version';

export interface ProbeInfo {
  readonly host: string;
  /** 0 when the server could not listen (the reason was reported with console.warn). */
  readonly port: number;
  /** Clients must present it in `hello`. */
  readonly token: string;
  /** null when discovery is off or the file could not be written. */
  readonly discoveryFile: string | null;
}

export interface Recording {
  /** Absolute path of the trace file. */
  readonly file: string;
  /** Writes what is still buffered and closes the file. Idempotent. */
  stop(): Promise<void>;
}

interface Started {
  readonly info: ProbeInfo;
  readonly server: ProbeServer | undefined;
  readonly removeExitHook: (() => void) | undefined;
  /** Stops passing Node's MaxListenersExceededWarnings to clients. */
  readonly stopWarnings?: () => void;
}

export class Probe {
  private recorder: Recorder | undefined;
  private starting: Promise<ProbeInfo> | undefined;
  private started: Started | undefined;
  /** Bumped by stop(), so a start still listening knows it was cancelled. */
  private generation = 0;
  private readonly recordings = new Set<FileSink>();
  private readonly startTime = Date.now();
  private appName: string | undefined;

  /**
   * Starts the probe server (idempotent: later calls return the first call's result until `stop()`).
   * Resolves once listening; never rejects — on failure it reports once and resolves with port 0.
   * In a worker thread that joined the main thread's probe (threads/environment.ts) it does not
   * listen: it warns once and resolves with port 0 (that thread's buses are in the main thread's session).
   * @throws TypeError on bad options.
   */
  start(options?: ProbeStartOptions): Promise<ProbeInfo> {
    const o = resolveStartOptions('probe.start', options);
    if (!isMainThread && runtime.sharedIds !== undefined) {
      // One socket and discovery file per process, the main thread's: a second (same pid) would
      // also take this thread's buses away from the session they are forwarded to.
      reportProbeWarning(
        `probe.start() in worker thread ${threadId} does not listen: only the main thread opens a socket and a discovery file, ` +
          "and this thread's buses are recorded by the main thread's probe (start it there)",
      );
      return Promise.resolve(Object.freeze({ host: o.host, port: 0, token: '', discoveryFile: null }));
    }
    if (this.starting !== undefined) {
      // Started already (by busscope-probe/register or BUSSCOPE=1, before the app's own start): the
      // app's name still counts while nobody named it (read when the discovery file is written).
      if (o.name !== undefined && this.appName === undefined) this.appName = o.name;
      return this.starting;
    }
    this.starting = this.doStart(o);
    return this.starting;
  }

  /** The running server's info, once listening. */
  get info(): ProbeInfo | undefined {
    const started = this.started;
    return started?.server === undefined ? undefined : started.info;
  }

  /** Stops the server and disconnects its clients (trace recordings keep going until their `stop()`). */
  async stop(): Promise<void> {
    const starting = this.starting;
    if (starting === undefined) return;
    this.generation++;
    this.starting = undefined;
    await starting;
    const started = this.started;
    this.started = undefined;
    if (started === undefined) return;
    try {
      started.removeExitHook?.();
      started.stopWarnings?.();
      if (started.info.discoveryFile !== null) removeDiscoveryFile(started.info.discoveryFile);
    } catch (error) {
      reportProbeFailure('removing the discovery file', error);
    }
    try {
      await started.server?.close();
    } catch (error) {
      reportProbeFailure('closing the probe server', error);
    }
    this.recorder?.setTracking(false);
    uninstallProcessWide();
    this.updateBusTracer();
  }

  /**
   * Records every bus to `file` (a trace: the frames a live client would receive). Works without
   * `start()`. On failure (unwritable path) reports once and returns a recording that does nothing.
   * @throws TypeError when `file` is not a non-empty string.
   */
  record(file: string, options?: ProbeStartOptions): Recording {
    if (typeof file !== 'string' || file.length === 0) {
      throw new TypeError(`probe.record: file must be a non-empty string (got ${typeof file === 'string' ? '""' : typeof file})`);
    }
    const o = resolveStartOptions('probe.record', options);
    const absolute = path.resolve(file);
    const forwarder = isMainThread ? undefined : joinedWorkerForwarder();
    if (forwarder !== undefined) return this.recordJoinedWorker(forwarder, absolute, o, options !== undefined);
    let sink: FileSink;
    let recorder: Recorder;
    try {
      recorder = this.ensureRecorder(o, options !== undefined);
      sink = new FileSink(absolute);
    } catch (error) {
      reportProbeFailure(`recording to ${absolute}`, error);
      return { file: absolute, stop: () => Promise.resolve() };
    }
    this.recordings.add(sink);
    this.updateBusTracer();
    return runRecording(
      absolute,
      sink,
      () => {
        recorder.attach(sink, [encodeControlFrame(this.welcome(recorder, PROTOCOL_VERSION))], () => encodeSnapshotFrame(buildSnapshot(recorder), null));
        mainThreadHub()?.setConfig(recorder.config);
        mainThreadHub()?.attachStream(sink, () => recorder.drainSoon());
      },
      () => recorder.detach(sink, true),
      () => {
        mainThreadHub()?.detachStream(sink);
        this.recordings.delete(sink);
        this.updateBusTracer();
      },
    );
  }

  /**
   * `record(file)` in a worker thread that joined the main thread's probe: the worker's forwarding
   * recorder writes the file too, so the thread's buses stay in the main thread's session (a recorder
   * of the probe's own would take them over). Options given here configure that recorder until the
   * main thread's clients change its settings.
   */
  private recordJoinedWorker(forwarder: WorkerForwarder, absolute: string, o: ResolvedStartOptions, explicit: boolean): Recording {
    const recorder = forwarder.recorder;
    let sink: FileSink;
    try {
      if (explicit) recorder.configure(recordingConfigOf(o));
      sink = new FileSink(absolute);
    } catch (error) {
      reportProbeFailure(`recording to ${absolute}`, error);
      return { file: absolute, stop: () => Promise.resolve() };
    }
    return runRecording(
      absolute,
      sink,
      () =>
        forwarder.attachLocal(sink, [encodeControlFrame(this.welcome(recorder, PROTOCOL_VERSION))], () => encodeSnapshotFrame(buildSnapshot(recorder), null)),
      () => forwarder.detachLocal(sink),
      () => undefined,
    );
  }

  /**
   * Shows an emitter the app already has as a bus: a Node `EventEmitter`, an `EventTarget`, a mitt
   * or a nanoevents emitter. Named `options.name`, else `ClassName#n`; its listeners are
   * subscriptions (function name as label, subscribe site captured while the probe is started), each
   * emit a dispatch with per-listener timings while recording. The emitter behaves exactly as
   * before; disposing the handle restores its own properties exactly (listeners added meanwhile stay
   * registered). Watching a watched target returns another handle on the same watch.
   * @throws TypeError for a target of none of those kinds, a Proxy, a frozen/sealed/non-extensible
   * object, or bad options — and nothing is changed.
   */
  watch(target: object, options?: WatchOptions): WatchHandle {
    return watchTarget(target, options);
  }

  /** The current state: buses, types, live subscriptions, dispatches in progress. Synchronous. */
  snapshot(): ProbeSnapshot {
    return buildSnapshot(this.recorder);
  }

  /** The recording settings in effect. */
  get config(): RecordingConfig {
    return this.recorder?.config ?? DEFAULT_RECORDING_CONFIG;
  }

  private async doStart(o: ResolvedStartOptions): Promise<ProbeInfo> {
    const generation = this.generation;
    const failed: ProbeInfo = { host: o.host, port: 0, token: '', discoveryFile: null };
    let recorder: Recorder;
    try {
      recorder = this.ensureRecorder(o, true);
      if (o.name !== undefined) this.appName = o.name;
    } catch (error) {
      reportProbeFailure('starting the probe', error);
      return failed;
    }
    this.started = { info: failed, server: undefined, removeExitHook: undefined };
    this.updateBusTracer();
    let server: ProbeServer;
    try {
      // The server is created synchronously here, before emitters are instrumented (it is never
      // instrumented anyway: probe-server.ts marks it); emitters are instrumented from the first
      // tick, so the app's listeners added while the socket binds are seen.
      const listening = ProbeServer.listen({
        host: o.host,
        port: o.port,
        recorder,
        maxPendingBytes: o.maxClientBufferBytes,
        welcome: (version) => this.welcome(recorder, version),
        snapshot: () => buildSnapshot(recorder),
      });
      this.instrumentEmitters(o, recorder);
      server = await listening;
    } catch (error) {
      reportProbeFailure(`listening on ${o.host}:${o.port}`, error);
      if (this.generation === generation) {
        this.started = undefined;
        uninstallProcessWide();
        this.updateBusTracer();
      }
      return failed;
    }
    if (this.generation !== generation) {
      // stop() ran while we were binding.
      await server.close();
      return failed;
    }
    let discoveryFile: string | null = null;
    if (o.discovery) {
      try {
        discoveryFile = writeDiscoveryFile({
          pid: process.pid,
          name: this.name(),
          cwd: process.cwd(),
          host: o.host,
          port: server.port,
          token: server.token,
          protocolVersion: PROTOCOL_VERSION,
          probeVersion: PROBE_VERSION,
          startTime: this.startTime,
        });
      } catch (error) {
        reportProbeFailure('writing the discovery file', error);
      }
    }
    const file = discoveryFile;
    const removeExitHook = file === null ? undefined : onProcessExit(() => removeDiscoveryFile(file));
    const info: ProbeInfo = Object.freeze({ host: o.host, port: server.port, token: server.token, discoveryFile });
    if (!isLoopbackHost(o.host)) {
      reportProbeWarning(
        `listening on ${o.host}:${server.port}, which other machines may reach; only the token protects the probe (use 127.0.0.1 unless you need remote access)`,
      );
    }
    const stopEmitterWarnings = listenForMaxListenersWarnings(recorder.timeOrigin, (m) => server.emitterWarning(m));
    // Drops at a producer queue's cap (bus/producer-inbox.ts), batched there, go to the clients that asked.
    const parts = (runtime.optional ??= {});
    const reportDrops = (r: ProducerDropReport): void => server.producerMessage({ type: 'producer-drops', time: Date.now() - recorder.timeOrigin, ...r });
    const reportConnected = (bus: number, line: string): void => {
      const frame = parseStackLine(line);
      // A worker script's top level shows as `Object.<anonymous>` (CommonJS): no function to name.
      const functionName = frame?.functionName === undefined || frame.functionName === 'Object.<anonymous>' ? null : frame.functionName;
      const site = frame === undefined ? null : { file: frame.file, line: frame.line, column: frame.column, functionName };
      server.producerMessage({ type: 'producer-connected', time: Date.now() - recorder.timeOrigin, bus, site });
    };
    parts.producerDrops = reportDrops;
    parts.producerConnected = reportConnected;
    const stopWarnings = (): void => {
      stopEmitterWarnings();
      if (parts.producerDrops === reportDrops) parts.producerDrops = undefined;
      if (parts.producerConnected === reportConnected) parts.producerConnected = undefined;
    };
    this.started = { info, server, removeExitHook, stopWarnings };
    // Under a debugger, track dispatches even without a client so a snapshot taken while paused
    // shows the dispatch in progress.
    try {
      if (inspector.url() !== undefined) recorder.setTracking(true);
    } catch {
      // no inspector in this runtime
    }
    return info;
  }

  /** `emitters` other than `off`: every EventEmitter / EventTarget, until `stop()` (emitters/process-wide.ts). */
  private instrumentEmitters(o: ResolvedStartOptions, recorder: Recorder): void {
    if (o.emitters === 'off') return;
    try {
      installProcessWide({
        mode: o.emitters,
        classes: o.emitterClasses === undefined ? undefined : new Set(o.emitterClasses),
        focus: () => recorder.focus,
      });
    } catch (error) {
      uninstallProcessWide();
      reportProbeFailure("instrumenting the process's emitters (BUSSCOPE_EMITTERS=off turns it off)", error);
    }
  }

  // BUSSCOPE_NAME is read again here: under `--require busscope-probe/register` the probe starts
  // before the app's main module runs, and an app may set its name in the environment there.
  private name(): string {
    const fromEnvironment = process.env.BUSSCOPE_NAME;
    return this.appName ?? (fromEnvironment !== undefined && fromEnvironment.trim() !== '' ? fromEnvironment : undefined) ?? defaultAppName();
  }

  private welcome(recorder: Pick<Recorder, 'timeOrigin' | 'config'>, protocolVersion: number): WelcomeMessage {
    return {
      type: 'welcome',
      protocolVersion,
      probeVersion: PROBE_VERSION,
      app: appInfo(this.name(), this.startTime),
      timeOrigin: recorder.timeOrigin,
      config: recorder.config,
    };
  }

  /** The one recorder; options given explicitly (start, or record with options) update it. */
  private ensureRecorder(o: ResolvedStartOptions, explicit: boolean): Recorder {
    const config = recordingConfigOf(o);
    if (this.recorder === undefined) {
      this.recorder = new Recorder({ maxBufferedRecords: o.maxBufferedRecords, config, sanitize: o.sanitize });
    } else if (explicit) {
      this.recorder.configure(config);
      this.recorder.setCapacity(o.maxBufferedRecords);
      this.recorder.setSanitizer(o.sanitize);
    }
    return this.recorder;
  }

  /** The bus tracer is installed while the server runs or a trace records. */
  private updateBusTracer(): void {
    const recorder = this.recorder;
    if (recorder === undefined) return;
    const want = this.started !== undefined || this.recordings.size > 0;
    const installed = primaryBusTracer() === recorder;
    if (want && !installed) {
      recorder.tracingStarted();
      setBusTracer(recorder);
    } else if (!want && installed) {
      setBusTracer(undefined);
      recorder.shutdown();
    }
  }
}

/**
 * A trace file's recording: `attach` starts it; `stop()` or the process's exit ends it once —
 * `detach` (the recorder delivers what it holds), the file closes, then `ended`. Failures are
 * reported, never thrown into the app.
 */
function runRecording(absolute: string, sink: FileSink, attach: () => void, detach: () => void, ended: () => void): Recording {
  let stopped = false;
  const finish = () => {
    if (stopped) return;
    stopped = true;
    try {
      detach();
    } catch (error) {
      reportProbeFailure(`finishing ${absolute}`, error);
    }
    sink.close();
    ended();
  };
  const removeExitHook = onProcessExit(finish);
  try {
    attach();
  } catch (error) {
    reportProbeFailure(`recording to ${absolute}`, error);
  }
  return {
    file: absolute,
    stop: () => {
      removeExitHook();
      finish();
      return Promise.resolve();
    },
  };
}

function recordingConfigOf(o: ResolvedStartOptions): RecordingConfig {
  return {
    detail: o.detail,
    captureStacks: o.captureStacks,
    capturePayloads: o.capturePayloads,
    payloadSizeCap: o.payloadSizeCap,
    dispatchSiteEvery: o.dispatchSiteEvery,
  };
}

/**
 * The process-wide probe: one per process, shared by every copy of the package (the ESM and CJS
 * builds, other installs of the same runtime version — see bus/runtime.ts). The first copy loaded
 * creates it; `probe.start()` from any copy starts that one.
 */
export const probe: Probe = sharedProbe();

function sharedProbe(): Probe {
  // Same RUNTIME_VERSION means the same Probe API, whichever copy built the object.
  const existing = runtime.probe as Probe | undefined;
  if (existing !== undefined) return existing;
  const own = new Probe();
  runtime.probe = own;
  return own;
}

/**
 * Where a debugger finds the probe while the app is paused (the socket cannot answer then):
 * `globalThis[Symbol.for('busscope.probe')].snapshot()`. The first copy of the package loaded wins.
 */
export const PROBE_GLOBAL_KEY = Symbol.for('busscope.probe');
{
  const g = globalThis as { [PROBE_GLOBAL_KEY]?: Probe };
  if (g[PROBE_GLOBAL_KEY] === undefined) g[PROBE_GLOBAL_KEY] = probe;
}
