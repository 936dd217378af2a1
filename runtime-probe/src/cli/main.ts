// `busscope` — command line for the probe: list discovered apps, tail an app's records as NDJSON,
// record a trace file, run the demo app. Exit codes: 0 done, 1 failed, 2 usage error.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ProbeClient, ProbeClientError } from '../client/index';
import { discoveryDirectory, listDiscoveredApps, type DiscoveredApp } from '../discovery/index';
import { PROBE_VERSION } from '../probe/version';
import { DETAIL_LEVELS, PROTOCOL_VERSION, encodeTraceHeader, type DetailLevel, type StreamMessage } from '../protocol/index';

const HELP = `busscope ${PROBE_VERSION} — see and record the event buses of a running app

Usage:
  busscope list [--json]                      apps running with the probe (BUSSCOPE=1 or probe.start())
  busscope tail <pid|port> [options]          print the app's records as NDJSON on stdout
  busscope record <pid|port> -o <file> [options]
                                              write a trace file (open it in the Busscope inspector)
  busscope demo [demo options]                run the demo app with the probe on
  busscope --help | --version

Options for tail and record:
  --token <token>      connect without a discovery file (with a port)
  --host <host>        default 127.0.0.1
  --detail <level>     lifecycle | dispatch | handlers (changes it for the whole app)
  --duration <sec>     stop after this many seconds (default: until the app exits or Ctrl+C)

Apps are found in ${discoveryDirectory()}
(override with BUSSCOPE_DISCOVERY_DIR).

Exit codes: 0 done, 1 failed (no such app, connection refused), 2 usage error.`;

class UsageError extends Error {}

interface Flags {
  readonly positional: string[];
  readonly values: Map<string, string>;
  readonly switches: Set<string>;
}

const VALUE_FLAGS = new Set(['--token', '--host', '--detail', '--duration', '-o', '--output']);

function parseFlags(args: readonly string[]): Flags {
  const positional: string[] = [];
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (VALUE_FLAGS.has(a)) {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      values.set(a === '--output' ? '-o' : a, v);
    } else if (a.startsWith('-') && a !== '-') {
      switches.add(a);
    } else {
      positional.push(a);
    }
  }
  return { positional, values, switches };
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

function cmdList(flags: Flags): number {
  if (flags.positional.length > 0) throw new UsageError(`list takes no arguments (got ${flags.positional.join(' ')})`);
  const apps = listDiscoveredApps();
  if (flags.switches.has('--json')) {
    const out = apps.map(({ token: _token, ...rest }) => rest);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  }
  if (apps.length === 0) {
    process.stderr.write(`no apps with the Busscope probe are running (looked in ${discoveryDirectory()})\n`);
    return 0;
  }
  const rows = [['PID', 'NAME', 'ADDRESS', 'AGE', 'CWD'], ...apps.map((a) => [String(a.pid), a.name, `${a.host}:${a.port}`, age(Date.now() - a.startTime), a.cwd])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ') + '\n');
  return 0;
}

interface Target {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly label: string;
}

function resolveTarget(flags: Flags, command: string): Target {
  const arg = flags.positional[0];
  if (arg === undefined) throw new UsageError(`${command} needs a pid or port (see \`busscope list\`)`);
  if (flags.positional.length > 1) throw new UsageError(`${command} takes one pid or port (got ${flags.positional.join(' ')})`);
  const n = Number(arg);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`"${arg}" is not a pid or port`);
  const host = flags.values.get('--host');
  const token = flags.values.get('--token');
  if (token !== undefined) {
    if (n > 65535) throw new UsageError(`with --token, give a port (1…65535), not ${n}`);
    return { host: host ?? '127.0.0.1', port: n, token, label: `port ${n}` };
  }
  const apps = listDiscoveredApps();
  const app: DiscoveredApp | undefined = apps.find((a) => a.pid === n) ?? apps.find((a) => a.port === n);
  if (app === undefined) {
    throw new CliFailure(
      `no running app with pid or port ${n} in ${discoveryDirectory()} (is it running with BUSSCOPE=1? ` +
        'for an app without a discovery file, pass --token)',
    );
  }
  return { host: host ?? app.host, port: app.port, token: app.token, label: `${app.name} (pid ${app.pid}, port ${app.port})` };
}

class CliFailure extends Error {}

function detailFlag(flags: Flags): DetailLevel | undefined {
  const d = flags.values.get('--detail');
  if (d === undefined) return undefined;
  if (!(DETAIL_LEVELS as readonly string[]).includes(d)) throw new UsageError(`--detail must be one of ${DETAIL_LEVELS.join(', ')}`);
  return d as DetailLevel;
}

function durationFlag(flags: Flags): number | undefined {
  const d = flags.values.get('--duration');
  if (d === undefined) return undefined;
  const s = Number(d);
  if (!Number.isFinite(s) || s <= 0) throw new UsageError(`--duration must be a positive number of seconds`);
  return s * 1000;
}

/** Connects, runs until the app closes the connection, Ctrl+C, or the duration; resolves with the exit code. */
async function stream(
  target: Target,
  flags: Flags,
  clientName: string,
  onMessage: ((m: StreamMessage) => void) | undefined,
  onFrame: ((frame: Uint8Array) => void) | undefined,
  bind: (client: ProbeClient) => void,
): Promise<number> {
  const detail = detailFlag(flags);
  const duration = durationFlag(flags);
  let client: ProbeClient;
  try {
    client = await ProbeClient.connect({ host: target.host, port: target.port, token: target.token, clientName, onMessage, onFrame });
  } catch (error) {
    throw new CliFailure(`cannot attach to ${target.label}: ${(error as Error).message}`);
  }
  bind(client);
  if (detail !== undefined) await client.configure({ detail }).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => client.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (duration !== undefined) timer = setTimeout(stop, duration);
  const error = await client.closed;
  if (timer !== undefined) clearTimeout(timer);
  process.removeListener('SIGINT', stop);
  process.removeListener('SIGTERM', stop);
  if (error !== undefined && error.code !== 'probe-stopping') {
    process.stderr.write(`busscope: ${error.message}\n`);
    return 1;
  }
  return 0;
}

async function cmdTail(flags: Flags): Promise<number> {
  const target = resolveTarget(flags, 'tail');
  let client: ProbeClient | undefined;
  let broken = false;
  process.stdout.on('error', () => {
    // EPIPE (`busscope tail … | head`): stop quietly.
    broken = true;
    client?.close();
  });
  const onMessage = (m: StreamMessage) => {
    if (broken) return;
    let text = '';
    if (m.type === 'records') for (const r of m.records) text += JSON.stringify(r) + '\n';
    else text = JSON.stringify(m) + '\n';
    // Backpressure: a slow stdout makes this a slow client, and the probe counts what it skips.
    if (!process.stdout.write(text) && client !== undefined) {
      client.pause();
      process.stdout.once('drain', () => client?.resume());
    }
  };
  return stream(target, flags, 'busscope tail', onMessage, undefined, (c) => (client = c));
}

async function cmdRecord(flags: Flags): Promise<number> {
  const out = flags.values.get('-o');
  if (out === undefined) throw new UsageError('record needs -o <file>');
  const target = resolveTarget(flags, 'record');
  const file = path.resolve(out);
  let fd: number;
  try {
    fd = fs.openSync(file, 'w', 0o600);
  } catch (error) {
    throw new CliFailure(`cannot write ${file}: ${(error as Error).message}`);
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
    const code = await stream(target, flags, 'busscope record', undefined, (frame) => {
      write(frame);
      frames++;
    }, () => undefined);
    process.stderr.write(`busscope: recorded ${frames} frames (${bytes} bytes) from ${target.label} to ${file}\n`);
    return code;
  } finally {
    fs.closeSync(fd);
  }
}

function cmdDemo(args: readonly string[]): Promise<number> {
  const demo = path.join(__dirname, 'demo.cjs');
  if (!fs.existsSync(demo)) throw new CliFailure(`the demo app is missing (${demo})`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', demo, ...args], { stdio: 'inherit', env: { ...process.env, BUSSCOPE: '1' } });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      process.stderr.write(`busscope: cannot run the demo: ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      process.removeListener('SIGINT', forward);
      process.removeListener('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1));
    });
  });
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP + '\n');
        return command === undefined ? 2 : 0;
      case '--version':
      case '-v':
        process.stdout.write(`${PROBE_VERSION} (protocol ${PROTOCOL_VERSION})\n`);
        return 0;
      case 'list':
        return cmdList(parseFlags(rest));
      case 'tail':
        return await cmdTail(parseFlags(rest));
      case 'record':
        return await cmdRecord(parseFlags(rest));
      case 'demo':
        return await cmdDemo(rest);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`busscope: ${error.message}\nRun \`busscope --help\` for usage.\n`);
      return 2;
    }
    if (error instanceof CliFailure || error instanceof ProbeClientError) {
      process.stderr.write(`busscope: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`busscope: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
