// The demo app's entry (bundled to dist/demo.cjs; `busscope demo` and the extension's "Run Demo
// App" spawn it with BUSSCOPE=1). It runs the simulation in real time with the probe the way any
// app would use it: the package starts the probe from the environment when it loads.
//
// On start it prints one line to stdout, e.g.
//   busscope-demo running: pid=4242 port=39113 discovery=/run/user/0/busscope/4242-39113.json
// (`port=` and `discovery=` only while the probe is on; `trace=` when BUSSCOPE_RECORD is set).
// Run it as `node --enable-source-maps dist/demo.cjs` so subscribe sites point into src/demo/*.ts
// instead of the bundle (the flag must be there when the bundle loads; enabling it later is too late).
// SIGINT/SIGTERM or the end of --duration: stop the loop, dispose the buses, stop the probe (which
// removes the discovery file; a trace file is finished at exit), exit 0.
import './app-name';
import path from 'node:path';
import { probe, type ProbeInfo } from '../index';
import { readProbeEnvironment } from '../probe/environment';
import { USAGE, parseDemoArgs, type DemoArgs } from './args';
import { runInRealTime } from './loop';
import { DemoWorld, type HandlerErrorReport } from './world';

const MAX_DISTINCT_ERRORS_SHOWN = 10;

function startLine(info: ProbeInfo | undefined, tracePath: string | undefined): string {
  const parts = [`pid=${process.pid}`];
  if (info !== undefined) {
    parts.push(`port=${info.port}`);
    if (info.discoveryFile !== null) parts.push(`discovery=${info.discoveryFile}`);
  }
  if (tracePath !== undefined) parts.push(`trace=${tracePath}`);
  if (info === undefined && tracePath === undefined) parts.push('(probe off: run with BUSSCOPE=1 to inspect)');
  return `busscope-demo running: ${parts.join(' ')}`;
}

/** Shows each distinct handler error once (the demo throws the same few on purpose, repeatedly). */
function errorPrinter(args: DemoArgs): ((report: HandlerErrorReport) => void) | undefined {
  if (args.quiet) return undefined;
  const seen = new Set<string>();
  return (report) => {
    const message = report.error instanceof Error ? `${report.error.name}: ${report.error.message}` : String(report.error);
    const key = `${report.bus}|${report.type}|${message}`;
    if (seen.has(key) || seen.size >= MAX_DISTINCT_ERRORS_SHOWN) return;
    seen.add(key);
    process.stderr.write(`busscope-demo: handler error on ${report.bus}/${report.type} (shown once; it will repeat): ${message}\n`);
  };
}

async function main(): Promise<void> {
  let args: DemoArgs;
  try {
    args = parseDemoArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`busscope-demo: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  const world = new DemoWorld({ ...(args.seed !== undefined ? { seed: args.seed } : {}), onHandlerError: errorPrinter(args) });
  const loop = runInRealTime(world);

  // The package already acted on the environment (and warned about bad values) when it loaded; the
  // same parse says what it did. Same options, same promise: start() is idempotent.
  const wanted = readProbeEnvironment(process.env);
  const info = wanted.start !== undefined ? await probe.start(wanted.start) : undefined;
  console.log(startLine(info, wanted.record !== undefined ? path.resolve(wanted.record.file) : undefined));

  let stopping = false;
  const shutdown = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    loop.stop();
    world.dispose();
    await probe.stop();
    if (!args.quiet) {
      const e = world.errorCounts;
      process.stderr.write(
        `busscope-demo: stopped (${why}) after ${(world.now / 1000).toFixed(1)} s of game time; handler errors: gameplay ${e.gameplay}, ui ${e.ui}, audio ${e.audio}\n`,
      );
    }
    process.exit(0); // 'exit' finishes a BUSSCOPE_RECORD trace
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (args.durationSeconds !== undefined) setTimeout(() => void shutdown('duration'), args.durationSeconds * 1000);
}

void main().catch((error: unknown) => {
  process.stderr.write(`busscope-demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
