// Command line and environment of the demo app.
import { parseSwitch } from '../probe/environment';

export interface DemoArgs {
  /** Seconds to run; undefined runs until killed. */
  readonly durationSeconds: number | undefined;
  /** No output except the start line. */
  readonly quiet: boolean;
  readonly seed: number | undefined;
  readonly help: boolean;
}

export const USAGE = `Usage: busscope-demo [--duration <seconds>] [--quiet] [--seed <n>]

A small game-like simulation on three event buses (gameplay, ui, audio) with deliberate,
labelled bugs for the Busscope inspector to find. Run it with BUSSCOPE=1 to start the probe
(or BUSSCOPE_RECORD=<file> to record a trace).

  --duration <s>  stop after <s> seconds (default: run until killed; env BUSSCOPE_DEMO_DURATION)
  --quiet         print only the start line (env BUSSCOPE_DEMO_QUIET=1)
  --seed <n>      seed of the simulation (default: fixed, so runs repeat)
`;

function positiveNumber(flag: string, raw: string | undefined): number {
  const n = Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new TypeError(`${flag} needs a positive number of seconds, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`);
  }
  return n;
}

/** Parses argv (without node and script) and the environment; throws TypeError on bad input. */
export function parseDemoArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): DemoArgs {
  let durationSeconds: number | undefined;
  const quietSwitch = parseSwitch('BUSSCOPE_DEMO_QUIET', env.BUSSCOPE_DEMO_QUIET, 'the demo does not start');
  if (!quietSwitch.ok) throw new TypeError(quietSwitch.problem);
  let quiet = quietSwitch.value;
  let seed: number | undefined;
  let help = false;
  if (env.BUSSCOPE_DEMO_DURATION !== undefined && env.BUSSCOPE_DEMO_DURATION !== '') {
    durationSeconds = positiveNumber('BUSSCOPE_DEMO_DURATION', env.BUSSCOPE_DEMO_DURATION);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--duration':
        durationSeconds = positiveNumber('--duration', value());
        break;
      case '--quiet':
      case '-q':
        quiet = true;
        break;
      case '--seed': {
        const raw = value();
        const n = Number(raw);
        if (raw === undefined || !Number.isInteger(n)) throw new TypeError(`--seed needs an integer, got ${JSON.stringify(raw)}`);
        seed = n;
        break;
      }
      case '--help':
      case '-h':
        help = true;
        break;
      default:
        throw new TypeError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { durationSeconds, quiet, seed, help };
}
