// The BUSSCOPE_* variables the probe reads when the package loads, parsed in one place. Unlike options
// passed in code (a TypeError at the call), a bad environment value is not the program's bug: it
// becomes one warning that names the variable, the value and what is accepted, and what it controls
// stays off (no guessing a port or a host the user did not ask for).
//
//   BUSSCOPE=1                start the probe server; also true, yes, on (any case). 0, false, no,
//                             off or empty: off. With it, optionally:
//     BUSSCOPE_NAME           the app's name in the Attach picker
//     BUSSCOPE_PORT           0…65535 (0 = any free port)
//     BUSSCOPE_HOST           address to listen on; a non-loopback one also needs
//     BUSSCOPE_ALLOW_REMOTE   1, true, yes, on (or 0, false, no, off, empty)
//     BUSSCOPE_EMITTERS       all, app or off (default off; all under busscope-probe/register):
//                             instrument the process's EventEmitters and EventTargets — every one,
//                             or those with a listener from the app's own code
//     BUSSCOPE_EMITTER_CLASSES  Name1,Name2: only instances of these classes (constructor names)
//   BUSSCOPE_RECORD=<file>    record a trace to <file> (no socket needed)
//   BUSSCOPE_DETAIL           lifecycle, dispatch or handlers: the detail of both of the above
//
// `node --require busscope-probe/register` (or `--import` for ESM) acts as if BUSSCOPE=1 and
// BUSSCOPE_EMITTERS=all were set unless they are set otherwise (BUSSCOPE=0 keeps it off), in the
// launched process and its worker threads only; its child processes (which inherit NODE_OPTIONS)
// stay off unless
//   BUSSCOPE_CHILDREN=1       child processes start a probe too
//   BUSSCOPE_REGISTER_ROOT    set by register to the launched process's pid (children compare it)

import { DETAIL_LEVELS, type DetailLevel } from '../protocol/index';
import { EMITTER_MODES, isLoopbackHost, type EmitterInstrumentation, type ProbeStartOptions } from './options';

const TRUE_WORDS = ['1', 'true', 'yes', 'on'] as const;
const FALSE_WORDS = ['0', 'false', 'no', 'off'] as const;
const SWITCH_ACCEPTS = `${TRUE_WORDS.join(', ')} to turn it on; ${FALSE_WORDS.join(', ')} or empty for off (any case)`;

/** What the environment asks for. `problems` holds one warning per value not accepted. */
export interface ProbeEnvironment {
  /** BUSSCOPE_RECORD: record to this file, with these options (undefined: do not record). */
  readonly record: { readonly file: string; readonly options: ProbeStartOptions | undefined } | undefined;
  /** BUSSCOPE: start with these options (undefined: do not start). */
  readonly start: ProbeStartOptions | undefined;
  readonly problems: readonly string[];
}

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function rejected<T>(name: string, raw: string, accepts: string, consequence: string): Parsed<T> {
  return { ok: false, problem: `${name}=${JSON.stringify(raw)} is not accepted (${accepts}); ${consequence}` };
}

/** An on/off switch; unset and empty are off. */
export function parseSwitch(name: string, raw: string | undefined, consequence: string): Parsed<boolean> {
  if (raw === undefined) return { ok: true, value: false };
  const word = raw.trim().toLowerCase();
  if (word === '') return { ok: true, value: false };
  if ((TRUE_WORDS as readonly string[]).includes(word)) return { ok: true, value: true };
  if ((FALSE_WORDS as readonly string[]).includes(word)) return { ok: true, value: false };
  return rejected(name, raw, `use ${SWITCH_ACCEPTS}`, consequence);
}

/** Unset or empty: undefined (the default). */
function parsePort(raw: string | undefined, consequence: string): Parsed<number | undefined> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined };
  const text = raw.trim();
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 65535)) return rejected('BUSSCOPE_PORT', raw, 'use a port number in 0…65535, 0 for any free port', consequence);
  return { ok: true, value: n };
}

function parseDetail(raw: string | undefined, consequence: string): Parsed<DetailLevel | undefined> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined };
  const word = raw.trim().toLowerCase();
  const level = DETAIL_LEVELS.find((d) => d === word);
  if (level === undefined) return rejected('BUSSCOPE_DETAIL', raw, `use one of ${DETAIL_LEVELS.join(', ')}`, consequence);
  return { ok: true, value: level };
}

function parseEmitters(raw: string | undefined, fallback: EmitterInstrumentation): Parsed<EmitterInstrumentation> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: fallback };
  const word = raw.trim().toLowerCase();
  const mode = EMITTER_MODES.find((m) => m === word);
  if (mode === undefined) {
    return rejected('BUSSCOPE_EMITTERS', raw, `use one of ${EMITTER_MODES.join(', ')}`, 'no emitter is instrumented (the probe itself starts)');
  }
  return { ok: true, value: mode };
}

/** `Name1,Name2` (spaces around names ignored); unset or empty: every class. */
function parseEmitterClasses(raw: string | undefined): Parsed<string[] | undefined> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined };
  const names = raw.split(',').map((n) => n.trim());
  if (names.some((n) => !/^[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$]*$/u.test(n))) {
    return rejected(
      'BUSSCOPE_EMITTER_CLASSES',
      raw,
      'use class names separated by commas, e.g. Socket,Server',
      'no emitter is instrumented (the probe itself starts)',
    );
  }
  return { ok: true, value: names };
}

/** Who reads the environment: the package as it loads, or `busscope-probe/register` (see above). */
export type EnvironmentReader = 'package' | 'register';

/** Reads the probe's variables; never throws. */
export function readProbeEnvironment(env: NodeJS.ProcessEnv, reader: EnvironmentReader = 'package'): ProbeEnvironment {
  const problems: string[] = [];
  const value = <T>(parsed: Parsed<T>): T | undefined => {
    if (parsed.ok) return parsed.value;
    problems.push(parsed.problem);
    return undefined;
  };

  const recordRaw = env.BUSSCOPE_RECORD;
  const recordFile = recordRaw === undefined || recordRaw.trim() === '' ? undefined : recordRaw;
  const startRaw = env.BUSSCOPE;
  // Under register, BUSSCOPE unset means on: loading the hook is the request.
  const wantsStart =
    reader === 'register' && (startRaw === undefined || startRaw.trim() === '') ? true : value(parseSwitch('BUSSCOPE', startRaw, 'the probe stays off'));
  if (recordFile === undefined && wantsStart !== true) return { record: undefined, start: undefined, problems };

  // Shared by both: a bad detail keeps both off (we would record something other than what was asked).
  const bothOff = [recordFile !== undefined ? 'no trace is recorded' : '', wantsStart === true ? 'the probe stays off' : '']
    .filter((s) => s !== '')
    .join(' and ');
  const detailParsed = parseDetail(env.BUSSCOPE_DETAIL, bothOff);
  const detail = value(detailParsed);
  const detailOk = detailParsed.ok;

  let record: ProbeEnvironment['record'];
  if (recordFile !== undefined) {
    const word = recordFile.trim().toLowerCase();
    // `BUSSCOPE_RECORD=1` is a switch typed where a path belongs; recording to a file named "1" would hide that.
    if ((TRUE_WORDS as readonly string[]).includes(word) || (FALSE_WORDS as readonly string[]).includes(word)) {
      problems.push(
        `BUSSCOPE_RECORD=${JSON.stringify(recordRaw)} is not accepted (it takes the trace file to write, e.g. BUSSCOPE_RECORD=run.bustrace; ` +
          'a file by that very name needs a path such as ./' +
          recordFile.trim() +
          '); no trace is recorded',
      );
    } else if (detailOk) {
      record = { file: recordFile, options: detail === undefined ? undefined : { detail } };
    }
  }

  let start: ProbeStartOptions | undefined;
  if (wantsStart === true) {
    const off = 'the probe stays off';
    const portParsed = parsePort(env.BUSSCOPE_PORT, off);
    const remoteParsed = parseSwitch('BUSSCOPE_ALLOW_REMOTE', env.BUSSCOPE_ALLOW_REMOTE, off);
    const port = value(portParsed);
    const allowRemote = value(remoteParsed);
    const name = env.BUSSCOPE_NAME === undefined || env.BUSSCOPE_NAME.trim() === '' ? undefined : env.BUSSCOPE_NAME;
    const hostRaw = env.BUSSCOPE_HOST;
    const host = hostRaw === undefined || hostRaw.trim() === '' ? undefined : hostRaw.trim();
    let hostOk = true;
    if (host !== undefined && remoteParsed.ok && allowRemote !== true && !isLoopbackHost(host)) {
      hostOk = false;
      problems.push(
        `BUSSCOPE_HOST=${JSON.stringify(hostRaw)} is not a loopback address (other machines could reach the probe; the token travels unencrypted): ` +
          `use 127.0.0.1, or also set BUSSCOPE_ALLOW_REMOTE=1 to mean it; ${off}`,
      );
    }
    const emittersParsed = parseEmitters(env.BUSSCOPE_EMITTERS, reader === 'register' ? 'all' : 'off');
    const classesParsed = parseEmitterClasses(env.BUSSCOPE_EMITTER_CLASSES);
    value(emittersParsed);
    const emitterClasses = value(classesParsed);
    const emitters = emittersParsed.ok && classesParsed.ok ? emittersParsed.value : 'off';
    if (portParsed.ok && remoteParsed.ok && hostOk && detailOk) {
      // Only what was set: the defaults (and their documentation) stay in options.ts.
      start = {};
      if (name !== undefined) start.name = name;
      if (host !== undefined) start.host = host;
      if (port !== undefined) start.port = port;
      if (allowRemote === true) start.allowRemote = true;
      if (detail !== undefined) start.detail = detail;
      if (emitters !== 'off') start.emitters = emitters;
      if (emitters !== 'off' && emitterClasses !== undefined) start.emitterClasses = emitterClasses;
    }
  }
  return { record, start, problems };
}
