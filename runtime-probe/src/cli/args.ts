// Command-line parsing with Node's own `util.parseArgs` in strict mode: an unknown option, a missing
// or malformed value, or a stray argument is a UsageError, raised before the CLI looks for any app.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DETAIL_LEVELS, type DetailLevel } from '../protocol/index';

/** One line per command, shown under a usage error. */
export const USAGE = {
  list: 'busscope list [--json]',
  tail: 'busscope tail <pid|port> [--token <token>] [--host <host>] [--detail <level>] [--duration <sec>]',
  record: 'busscope record <pid|port> -o <file> [--token <token>] [--host <host>] [--detail <level>] [--duration <sec>]',
  check:
    'busscope check <trace|pid|port> [--duration <sec>] [--token <token>] [--host <host>] [--detail <level>] [--fail-on <severity|kinds>] [--json] [--sarif <file>] [--set <key>=<value>]…',
  show: 'busscope show <trace>',
  any: 'busscope list | tail <pid|port> | record <pid|port> -o <file> | check <trace|pid|port> | show <trace> | demo | --help | --version',
} as const;

export type UsageName = keyof typeof USAGE;

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: UsageName,
  ) {
    super(message);
  }
}

/** What to connect to, as given on the command line (the app lookup happens later). */
export type TargetArg =
  { readonly kind: 'pid-or-port'; readonly id: number } | { readonly kind: 'port-and-token'; readonly port: number; readonly token: string };

export interface ListArgs {
  readonly help: boolean;
  readonly json: boolean;
}

export interface StreamArgs {
  readonly help: boolean;
  readonly target: TargetArg;
  readonly host: string | undefined;
  readonly detail: DetailLevel | undefined;
  readonly durationMs: number | undefined;
}

export interface RecordArgs extends StreamArgs {
  readonly output: string;
}

/** setTimeout fires at once beyond 2^31-1 ms, so a longer --duration cannot be honoured. */
const MAX_DURATION_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP_OPTION: Options = { help: { type: 'boolean', short: 'h' } };

const STREAM_OPTIONS: Options = {
  ...HELP_OPTION,
  token: { type: 'string' },
  host: { type: 'string' },
  detail: { type: 'string' },
  duration: { type: 'string' },
};

interface Parsed {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

function parse(args: readonly string[], options: Options, usage: UsageName): Parsed {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new UsageError(parseArgsMessage(error), usage);
  }
}

/** parseArgs' messages run to several lines with advice about `--`; keep the first sentence. */
function parseArgsMessage(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const text = String(e?.message ?? error);
  if (e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const m = /^Unknown option '([^']*)'/.exec(text);
    if (m !== null) return `unknown option ${m[1]}`;
  }
  const first = text.split('\n')[0].replace(/\.$/, '');
  return first.charAt(0).toLowerCase() + first.slice(1);
}

function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function parseListArgs(args: readonly string[]): ListArgs {
  const p = parse(args, { ...HELP_OPTION, json: { type: 'boolean' } }, 'list');
  const help = p.values.help === true;
  if (!help && p.positionals.length > 0) throw new UsageError(`list takes no arguments (got ${p.positionals.join(' ')})`, 'list');
  return { help, json: p.values.json === true };
}

function parseStream(command: 'tail' | 'record', p: Parsed): StreamArgs {
  const help = p.values.help === true;
  const token = str(p, 'token');
  const host = str(p, 'host');
  if (token === '') throw new UsageError('--token must not be empty', command);
  if (host === '') throw new UsageError('--host must not be empty', command);
  const detail = str(p, 'detail');
  if (detail !== undefined && !(DETAIL_LEVELS as readonly string[]).includes(detail)) {
    throw new UsageError(`--detail must be one of ${DETAIL_LEVELS.join(', ')} (got "${detail}")`, command);
  }
  const durationMs = parseDuration(str(p, 'duration'), command);
  const base = { help, host, detail: detail as DetailLevel | undefined, durationMs };
  if (help) return { ...base, target: { kind: 'pid-or-port', id: 0 } };
  const [arg, ...extra] = p.positionals;
  if (arg === undefined) throw new UsageError(`${command} needs a pid or port (see \`busscope list\`)`, command);
  if (extra.length > 0) throw new UsageError(`${command} takes one pid or port (got ${p.positionals.join(' ')})`, command);
  return { ...base, target: appTarget(arg, token, command) };
}

function parseDuration(duration: string | undefined, command: UsageName): number | undefined {
  if (duration === undefined) return undefined;
  const s = duration.trim() === '' ? NaN : Number(duration);
  if (!Number.isFinite(s) || s <= 0 || s > MAX_DURATION_SECONDS) {
    throw new UsageError(`--duration must be a number of seconds above 0 and at most ${MAX_DURATION_SECONDS} (got "${duration}")`, command);
  }
  return s * 1000;
}

function appTarget(arg: string, token: string | undefined, command: UsageName): TargetArg {
  const id = /^\d{1,10}$/.test(arg) ? Number(arg) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`"${arg}" is not a pid or port`, command);
  if (token !== undefined) {
    if (id > 65535) throw new UsageError(`with --token, give a port (1…65535), not ${id}`, command);
    return { kind: 'port-and-token', port: id, token };
  }
  return { kind: 'pid-or-port', id };
}

export function parseTailArgs(args: readonly string[]): StreamArgs {
  return parseStream('tail', parse(args, STREAM_OPTIONS, 'tail'));
}

export function parseRecordArgs(args: readonly string[]): RecordArgs {
  const p = parse(args, { ...STREAM_OPTIONS, output: { type: 'string', short: 'o' } }, 'record');
  const stream = parseStream('record', p);
  const output = str(p, 'output');
  if (!stream.help && (output === undefined || output === '')) throw new UsageError('record needs -o <file>', 'record');
  return { ...stream, output: output ?? '' };
}

/** What `check` reads: a trace file, or a running app observed for a while. */
export type CheckSource = { readonly kind: 'trace'; readonly file: string } | { readonly kind: 'app'; readonly target: TargetArg };

export interface CheckArgs {
  readonly help: boolean;
  readonly source: CheckSource;
  readonly host: string | undefined;
  readonly detail: DetailLevel | undefined;
  readonly durationMs: number | undefined;
  /** `--fail-on` as given (checked against the warning kinds by the command); default `warning`. */
  readonly failOn: string;
  readonly json: boolean;
  readonly sarif: string | undefined;
  /** `--set key=value`, in order (checked against the settings by the command). */
  readonly set: readonly { readonly key: string; readonly value: string }[];
}

/**
 * `check <trace|pid|port>`: an argument of digits only is a pid or port (a trace file named like a
 * number is given as `./123`); anything else is a trace file. The live-app options (--duration,
 * --token, --host) are refused with a trace, so a typo cannot silently do something else.
 */
export function parseCheckArgs(args: readonly string[]): CheckArgs {
  const p = parse(
    args,
    {
      ...HELP_OPTION,
      token: { type: 'string' },
      host: { type: 'string' },
      duration: { type: 'string' },
      detail: { type: 'string' },
      'fail-on': { type: 'string' },
      json: { type: 'boolean' },
      sarif: { type: 'string' },
      set: { type: 'string', multiple: true },
    },
    'check',
  );
  const help = p.values.help === true;
  const token = str(p, 'token');
  const host = str(p, 'host');
  if (token === '') throw new UsageError('--token must not be empty', 'check');
  if (host === '') throw new UsageError('--host must not be empty', 'check');
  const durationMs = parseDuration(str(p, 'duration'), 'check');
  const detail = str(p, 'detail');
  if (detail !== undefined && !(DETAIL_LEVELS as readonly string[]).includes(detail)) {
    throw new UsageError(`--detail must be one of ${DETAIL_LEVELS.join(', ')} (got "${detail}")`, 'check');
  }
  const failOn = str(p, 'fail-on') ?? 'warning';
  if (failOn.trim() === '') throw new UsageError('--fail-on must not be empty', 'check');
  const sarif = str(p, 'sarif');
  if (sarif === '') throw new UsageError('--sarif needs a file name', 'check');
  const rawSet = (p.values as Record<string, unknown>).set;
  const set = (Array.isArray(rawSet) ? (rawSet as string[]) : []).map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set takes <key>=<value>, e.g. listenerGrowth.threshold=50 (got "${item}")`, 'check');
    return { key: item.slice(0, eq).trim(), value: item.slice(eq + 1).trim() };
  });
  const base = { help, host, detail: detail as DetailLevel | undefined, durationMs, failOn, json: p.values.json === true, sarif, set };
  if (help) return { ...base, source: { kind: 'trace', file: '' } };
  const [arg, ...extra] = p.positionals;
  if (arg === undefined) throw new UsageError('check needs a trace file, or the pid or port of a running app (see `busscope list`)', 'check');
  if (extra.length > 0) throw new UsageError(`check takes one trace, pid or port (got ${p.positionals.join(' ')})`, 'check');
  if (/^\d+$/.test(arg)) return { ...base, source: { kind: 'app', target: appTarget(arg, token, 'check') } };
  for (const [flag, given] of [
    ['--duration', durationMs],
    ['--token', token],
    ['--host', host],
    ['--detail', detail],
  ] as const) {
    if (given !== undefined) throw new UsageError(`${flag} is for a running app; "${arg}" is read as a trace file`, 'check');
  }
  return { ...base, source: { kind: 'trace', file: arg } };
}

export interface ShowArgs {
  readonly help: boolean;
  readonly file: string;
}

export function parseShowArgs(args: readonly string[]): ShowArgs {
  const p = parse(args, HELP_OPTION, 'show');
  const help = p.values.help === true;
  if (help) return { help, file: '' };
  const [arg, ...extra] = p.positionals;
  if (arg === undefined) throw new UsageError('show needs a trace file (record one with `busscope record`)', 'show');
  if (extra.length > 0) throw new UsageError(`show takes one trace file (got ${p.positionals.join(' ')})`, 'show');
  return { help, file: arg };
}
