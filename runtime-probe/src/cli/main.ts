// `busscope` — command line for the probe: list discovered apps, tail an app's records as NDJSON,
// record a trace file, run the demo app. Exit codes: see exit-codes.ts (and `busscope --help`).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ProbeClient, ProbeClientError } from '../client/index';
import { discoveryDirectory, listDiscoveredApps } from '../discovery/index';
import { PROBE_VERSION } from '../probe/version';
import { PROTOCOL_VERSION, encodeTraceHeader, type StreamMessage } from '../protocol/index';
import { openTraceFile } from '../trace/open-trace-file';
import { USAGE, UsageError, parseCheckArgs, parseListArgs, parseRecordArgs, parseShowArgs, parseTailArgs, type UsageName } from './args';
import { Unreachable, reportEnd, resolveTarget, stream } from './attach';
import { runCheck } from './check';
import { EXIT, EXIT_CODE_TABLE, type ExitCode } from './exit-codes';
import { loadTrace } from './observe';
import { setKeys } from './set-options';
import { formatShow } from './show';
import { PacedOutput } from './paced-output';

/** The --set keys, wrapped under their option. */
const SET_KEYS = setKeys()
  .reduce<string[]>((lines, key) => {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + key.length + 2 <= 75) lines[last] += `, ${key}`;
    else lines.push(key);
    return lines;
  }, [])
  .join(`,\n${' '.repeat(23)}`);

const HELP = `busscope ${PROBE_VERSION} — see and record the event buses of a running app

Usage:
  busscope list [--json]                      apps running with the probe (BUSSCOPE=1 or probe.start())
  busscope tail <pid|port> [options]          print the app's records as NDJSON on stdout
  busscope record <pid|port> -o <file> [options]
                                              write a trace file (open it in the Busscope inspector);
                                              an existing regular file is replaced, a symlink refused
  busscope check <trace|pid|port> [options]   run the analyses (as the extension does) and print the
                                              warnings, grouped by kind, at file:line:column
  busscope show <trace>                       summary: buses, types, dispatch rates, slowest
                                              handlers, drops, warnings
  busscope demo [demo options]                run the demo app with the probe on
  busscope --help | --version

Options for tail and record:
  --token <token>      connect without a discovery file (with a port)
  --host <host>        default 127.0.0.1
  --detail <level>     lifecycle | dispatch | handlers: the app records at the highest level any
                       attached client asked for, and falls back when that client leaves
  --duration <sec>     stop after this many seconds (default: until the app ends or Ctrl+C)

Options for check (a digits-only argument is a pid or port; anything else a trace file):
  --duration, --token, --host, --detail    as for tail, for a running app: check observes it
                       for --duration (or until it ends or Ctrl+C), then runs the analyses
  --fail-on <list>     what makes check exit 1: a severity (error, warning, info: that or worse),
                       warning kinds, comma-separated, or none (default: warning)
  --json               print the result as JSON (schema: check-output.schema.json in the package)
  --sarif <file>       also write the warnings as a SARIF 2.1.0 log (code scanning)
  --set <key>=<value>  a threshold, as the extension's busscope.warnings.* settings; repeatable:
                       ${SET_KEYS}

Apps are found in ${discoveryDirectory()}
(override with BUSSCOPE_DISCOVERY_DIR).

${EXIT_CODE_TABLE}`;

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
  const rows = [
    ['PID', 'NAME', 'ADDRESS', 'AGE', 'CWD'],
    ...apps.map((a) => [String(a.pid), a.name, `${a.host}:${a.port}`, age(Date.now() - a.startTime), a.cwd]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ') + '\n');
  return EXIT.ok;
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

async function cmdCheck(args: readonly string[]): Promise<ExitCode> {
  const flags = parseCheckArgs(args);
  if (flags.help) return printHelp();
  return runCheck(flags);
}

async function cmdShow(args: readonly string[]): Promise<ExitCode> {
  const flags = parseShowArgs(args);
  if (flags.help) return printHelp();
  const { model, file, cut } = await loadTrace(flags.file);
  process.stdout.write(formatShow(model, file, process.cwd()));
  if (cut !== undefined) process.stderr.write(`busscope: ${cut}\n`);
  return EXIT.ok;
}

function cmdDemo(args: readonly string[]): Promise<number> {
  // The demo as the package ships it (scripts/build.mjs): no source map, so no --enable-source-maps.
  const demo = path.join(__dirname, 'busscope-demo.cjs');
  if (!fs.existsSync(demo)) {
    process.stderr.write(`busscope: the demo app is missing (${demo}); this installation is incomplete\n`);
    return Promise.resolve(EXIT.internal);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [demo, ...args], { stdio: 'inherit', env: { ...process.env, BUSSCOPE: '1' } });
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
      case 'check':
        return await cmdCheck(rest);
      case 'show':
        return await cmdShow(rest);
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
