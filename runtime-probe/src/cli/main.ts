// `busscope` — command line for the probe: list discovered apps, tail an app's records as NDJSON,
// record a trace file, run the demo app. Exit codes: see exit-codes.ts (and `busscope --help`).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ProbeClient, ProbeClientError } from '../client/index';
import { discoveryDirectory, listDiscoveredApps, type DiscoveredApp } from '../discovery/index';
import { PROBE_VERSION } from '../probe/version';
import { PROTOCOL_VERSION, encodeTraceHeader, type StreamMessage } from '../protocol/index';
import { openTraceFile } from '../trace/open-trace-file';
import { USAGE, UsageError, parseListArgs, parseRecordArgs, parseTailArgs, type StreamArgs, type UsageName } from './args';
import { EXIT, EXIT_CODE_TABLE, type ExitCode } from './exit-codes';
import { PacedOutput } from './paced-output';

const HELP = `busscope ${PROBE_VERSION} — see and record the event buses of a running app

Usage:
  busscope list [--json]                      apps running with the probe (BUSSCOPE=1 or probe.start())
  busscope tail <pid|port> [options]          print the app's records as NDJSON on stdout
  busscope record <pid|port> -o <file> [options]
                                              write a trace file (open it in the Busscope inspector);
                                              an existing regular file is replaced, a symlink refused
  busscope demo [demo options]                run the demo app with the probe on
  busscope --help | --version

Options for tail and record:
  --token <token>      connect without a discovery file (with a port)
  --host <host>        default 127.0.0.1
  --detail <level>     lifecycle | dispatch | handlers: the app records at the highest level any
                       attached client asked for, and falls back when that client leaves
  --duration <sec>     stop after this many seconds (default: until the app ends or Ctrl+C)

Apps are found in ${discoveryDirectory()}
(override with BUSSCOPE_DISCOVERY_DIR).

${EXIT_CODE_TABLE}`;

/** The app could not be reached or the output not created (exit 3). */
class Unreachable extends Error {}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

function printHelp(): ExitCode {
  process.stdout.write(HELP + '\n');
  return EXIT.ok;
}

function cmdList(args: readonly string[]): ExitCode {
  const flags = parseListArgs(args);
  if (flags.help) return printHelp();
  const apps = listDiscoveredApps();
  if (flags.json) {
    const out = apps.map(({ token: _token, ...rest }) => rest);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return EXIT.ok;
  }
  if (apps.length === 0) {
    process.stderr.write(`no apps with the Busscope probe are running (looked in ${discoveryDirectory()})\n`);
    return EXIT.ok;
  }
  const rows = [['PID', 'NAME', 'ADDRESS', 'AGE', 'CWD'], ...apps.map((a) => [String(a.pid), a.name, `${a.host}:${a.port}`, age(Date.now() - a.startTime), a.cwd])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ') + '\n');
  return EXIT.ok;
}

interface Target {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly label: string;
}

/** Looks the app up (only after every flag was checked). */
function resolveTarget(flags: StreamArgs): Target {
  const t = flags.target;
  switch (t.kind) {
    case 'port-and-token':
      return { host: flags.host ?? '127.0.0.1', port: t.port, token: t.token, label: `port ${t.port}` };
    case 'pid-or-port': {
      const apps = listDiscoveredApps();
      const app: DiscoveredApp | undefined = apps.find((a) => a.pid === t.id) ?? apps.find((a) => a.port === t.id);
      if (app === undefined) {
        throw new Unreachable(
          `no running app with pid or port ${t.id} in ${discoveryDirectory()} (is it running with BUSSCOPE=1? ` +
            'for an app without a discovery file, pass --token)',
        );
      }
      return { host: flags.host ?? app.host, port: app.port, token: app.token, label: `${app.name} (pid ${app.pid}, port ${app.port})` };
    }
    default: {
      const never: never = t;
      return never;
    }
  }
}

/** How a tail/record session ended. */
type SessionEnd =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'app-ended' }
  | { readonly kind: 'probe-stopped' }
  | { readonly kind: 'failed'; readonly message: string };

/** Connects, runs until the app closes the connection, Ctrl+C, or the duration; resolves with how it ended. */
async function stream(
  target: Target,
  flags: StreamArgs,
  clientName: string,
  onMessage: ((m: StreamMessage) => void) | undefined,
  onFrame: ((frame: Uint8Array) => void) | undefined,
  bind: (client: ProbeClient, stop: () => void) => void,
): Promise<{ readonly end: SessionEnd; readonly app: string }> {
  let client: ProbeClient;
  try {
    client = await ProbeClient.connect({ host: target.host, port: target.port, token: target.token, clientName, onMessage, onFrame });
  } catch (error) {
    throw new Unreachable(`cannot attach to ${target.label}: ${(error as Error).message}`);
  }
  const app = `app ${client.welcome.app.name} (pid ${client.welcome.app.pid})`;
  let stopRequested = false;
  const stop = () => {
    stopRequested = true;
    client.close();
  };
  bind(client, stop);
  if (flags.detail !== undefined) await client.configure({ detail: flags.detail }).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (flags.durationMs !== undefined) timer = setTimeout(stop, flags.durationMs);
  const error = await client.closed;
  if (timer !== undefined) clearTimeout(timer);
  process.removeListener('SIGINT', stop);
  process.removeListener('SIGTERM', stop);
  if (stopRequested) return { end: { kind: 'stopped' }, app };
  // The probe says why whenever it closes a connection itself; a close without a reason (or a
  // reset) means the app's process went away.
  if (error === undefined || error.code === 'closed') return { end: { kind: 'app-ended' }, app };
  if (error.code === 'probe-stopping') return { end: { kind: 'probe-stopped' }, app };
  return { end: { kind: 'failed', message: error.message }, app };
}

/** Says on stderr why a session ended unless the user ended it; returns the exit code. */
function reportEnd(end: SessionEnd, app: string): ExitCode {
  switch (end.kind) {
    case 'stopped':
      return EXIT.ok;
    case 'app-ended':
      process.stderr.write(`busscope: ${app} ended\n`);
      return EXIT.appEnded;
    case 'probe-stopped':
      process.stderr.write(`busscope: ${app} stopped its probe\n`);
      return EXIT.appEnded;
    case 'failed':
      process.stderr.write(`busscope: connection to ${app} failed: ${end.message}\n`);
      return EXIT.unreachable;
    default: {
      const never: never = end;
      return never;
    }
  }
}

async function cmdTail(args: readonly string[]): Promise<ExitCode> {
  const flags = parseTailArgs(args);
  if (flags.help) return printHelp();
  const target = resolveTarget(flags);
  let client: ProbeClient | undefined;
  let stopSession: (() => void) | undefined;
  // Back-pressure: a slow stdout pauses reading from the socket, which makes this a slow client of
  // the probe, and the probe counts what it skips.
  const out = new PacedOutput(process.stdout, {
    pause: () => client?.pause(),
    resume: () => client?.resume(),
    broken: () => (stopSession !== undefined ? stopSession() : client?.close()),
  });
  const onMessage = (m: StreamMessage) => {
    if (out.isBroken) return;
    let text = '';
    if (m.type === 'records') for (const r of m.records) text += JSON.stringify(r) + '\n';
    else text = JSON.stringify(m) + '\n';
    out.write(text);
  };
  try {
    const { end, app } = await stream(target, flags, 'busscope tail', onMessage, undefined, (c, stop) => {
      client = c;
      stopSession = stop;
    });
    // `tail | head` closing the pipe is the reader's choice, not a failure.
    return reportEnd(out.isBroken ? { kind: 'stopped' } : end, app);
  } finally {
    out.dispose();
  }
}

async function cmdRecord(args: readonly string[]): Promise<ExitCode> {
  const flags = parseRecordArgs(args);
  if (flags.help) return printHelp();
  const target = resolveTarget(flags);
  const file = path.resolve(flags.output);
  let fd: number;
  try {
    fd = openTraceFile(file);
  } catch (error) {
    throw new Unreachable(`cannot write ${file}: ${(error as Error).message}`);
  }
  let bytes = 0;
  let frames = 0;
  const write = (data: Uint8Array) => {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    bytes += data.length;
  };
  write(encodeTraceHeader(PROTOCOL_VERSION));
  try {
    const onFrame = (frame: Uint8Array) => {
      write(frame);
      frames++;
    };
    const { end, app } = await stream(target, flags, 'busscope record', undefined, onFrame, () => undefined);
    process.stderr.write(`busscope: recorded ${frames} frames (${bytes} bytes) from ${target.label} to ${file}\n`);
    return reportEnd(end, app);
  } finally {
    fs.closeSync(fd);
  }
}

function cmdDemo(args: readonly string[]): Promise<number> {
  const demo = path.join(__dirname, 'demo.cjs');
  if (!fs.existsSync(demo)) {
    process.stderr.write(`busscope: the demo app is missing (${demo}); this installation is incomplete\n`);
    return Promise.resolve(EXIT.internal);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', demo, ...args], { stdio: 'inherit', env: { ...process.env, BUSSCOPE: '1' } });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      process.stderr.write(`busscope: cannot run the demo: ${error.message}\n`);
      resolve(EXIT.internal);
    });
    child.on('exit', (code, signal) => {
      process.removeListener('SIGINT', forward);
      process.removeListener('SIGTERM', forward);
      // The demo's own exit code (its usage errors are 2 as well); Ctrl+C is a normal end.
      resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? EXIT.ok : EXIT.internal));
    });
  });
}

function usageFailure(message: string, usage: UsageName): ExitCode {
  process.stderr.write(`busscope: ${message}\nusage: ${USAGE[usage]}  (busscope --help for more)\n`);
  return EXIT.usage;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        process.stdout.write(HELP + '\n');
        return EXIT.usage;
      case 'help':
      case '--help':
      case '-h':
        return printHelp();
      case '--version':
      case '-v':
        process.stdout.write(`${PROBE_VERSION} (protocol ${PROTOCOL_VERSION})\n`);
        return EXIT.ok;
      case 'list':
        return cmdList(rest);
      case 'tail':
        return await cmdTail(rest);
      case 'record':
        return await cmdRecord(rest);
      case 'demo':
        return await cmdDemo(rest);
      default:
        throw new UsageError(command.startsWith('-') ? `unknown option ${command}` : `unknown command "${command}"`, 'any');
    }
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error.message, error.usage);
    if (error instanceof Unreachable || error instanceof ProbeClientError) {
      process.stderr.write(`busscope: ${error.message}\n`);
      return EXIT.unreachable;
    }
    process.stderr.write(`busscope: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.internal;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = EXIT.internal;
  },
);
