// The environment a Node debug launch gets so the program's Busscope probe starts and writes its
// discovery file where Busscope looks, and — with `busscope.debug.instrumentEmitters` — so the
// register script the extension ships instruments the program's EventEmitters/EventTargets with
// nothing installed in the app (NODE_OPTIONS=--require <register>). No `vscode` here.

/** Debug types of VS Code's JavaScript debugger for Node. */
export const NODE_DEBUG_TYPES: readonly string[] = ['node', 'pwa-node', 'node-terminal'];

export function isNodeDebugType(type: string): boolean {
  return NODE_DEBUG_TYPES.includes(type);
}

/** A debug configuration as far as the injection cares (VS Code's DebugConfiguration fits). */
export interface InjectableConfiguration {
  readonly type: string;
  readonly request: string;
  readonly env?: Record<string, string | null | undefined>;
  readonly [key: string]: unknown;
}

/** Which emitters the register script instruments (`BUSSCOPE_EMITTERS`). */
export type EmitterScope = 'all' | 'app';
export const EMITTER_SCOPES: readonly EmitterScope[] = ['all', 'app'];

/** What the register injection needs. */
export interface EmitterInjection {
  /** Absolute path of the register script the extension ships (dist/probe/register.cjs). */
  readonly registerScript: string;
  readonly scope: EmitterScope;
  /** Class names to instrument (empty: every class); passed comma-separated. */
  readonly classes: readonly string[];
  /** NODE_OPTIONS the debugger passes when the configuration sets none (VS Code's own environment). */
  readonly inheritedNodeOptions: string | undefined;
}

/** What happened to NODE_OPTIONS: the notice is shown only for `injected`. */
export type RegisterOutcome =
  | 'injected'
  /** The setting is off (or no register script is shipped). */
  | 'off'
  /** Not a Node launch. */
  | 'not-a-launch'
  /** NODE_OPTIONS already loads a Busscope register script (ours, from an earlier resolve pass, or the user's own). */
  | 'already'
  /** The user unset NODE_OPTIONS or BUSSCOPE (`null`) or set BUSSCOPE_EMITTERS=off: their choice wins. */
  | 'user-declined';

/** A configuration as returned by the injection: the same, with the environment it may have gained. */
export type Injected<C> = C & { readonly env?: Record<string, string | null | undefined> };

export interface InjectionResult<C> {
  readonly config: Injected<C>;
  readonly register: RegisterOutcome;
}

type Env = Record<string, string | null | undefined>;

/**
 * Adds BUSSCOPE=1 and the discovery folder to a Node launch configuration. Values the user set
 * (including `null`, which unsets a variable in js-debug) win. Attach configurations are returned
 * unchanged: their process is already running. With `emitters`, also loads the register script
 * through NODE_OPTIONS (see `injectLaunchEnvironment`).
 */
export function injectProbeEnvironment<C extends InjectableConfiguration>(config: C, discoveryDirectory: string, emitters?: EmitterInjection): Injected<C> {
  return injectLaunchEnvironment(config, discoveryDirectory, emitters).config;
}

/**
 * `injectProbeEnvironment`, telling also what became of the register script. NODE_OPTIONS is the
 * user's (the configuration's `env`, else what VS Code would pass) with `--require <register>`
 * appended, the path quoted the way Node parses NODE_OPTIONS. Idempotent: VS Code resolves a
 * configuration twice (before and after variable substitution), and a NODE_OPTIONS that already
 * loads a Busscope register script is left as it is.
 */
export function injectLaunchEnvironment<C extends InjectableConfiguration>(
  config: C,
  discoveryDirectory: string,
  emitters?: EmitterInjection,
): InjectionResult<C> {
  if (config.request !== 'launch' || !NODE_DEBUG_TYPES.includes(config.type)) return { config, register: 'not-a-launch' };
  const env: Env = { ...(config.env ?? {}) };
  if (!('BUSSCOPE' in env)) env.BUSSCOPE = '1';
  if (!('BUSSCOPE_DISCOVERY_DIR' in env) && discoveryDirectory !== '') env.BUSSCOPE_DISCOVERY_DIR = discoveryDirectory;
  const register = emitters === undefined ? 'off' : injectRegister(env, emitters);
  return { config: { ...config, env }, register };
}

function injectRegister(env: Env, emitters: EmitterInjection): RegisterOutcome {
  // `null` unsets a variable for the debuggee: no probe (BUSSCOPE) or no NODE_OPTIONS at all is the
  // user's explicit wish, and BUSSCOPE_EMITTERS=off says they want the probe without emitters.
  if (env.BUSSCOPE === null || env.NODE_OPTIONS === null || env.BUSSCOPE_EMITTERS === null) return 'user-declined';
  if (typeof env.BUSSCOPE_EMITTERS === 'string' && env.BUSSCOPE_EMITTERS.trim().toLowerCase() === 'off') return 'user-declined';
  const own = typeof env.NODE_OPTIONS === 'string' ? env.NODE_OPTIONS : (emitters.inheritedNodeOptions ?? '');
  if (loadsBusscopeRegister(own, emitters.registerScript)) return 'already';
  const require = `--require ${quoteNodeOption(emitters.registerScript)}`;
  env.NODE_OPTIONS = own.trim() === '' ? require : `${own.trim()} ${require}`;
  if (!('BUSSCOPE_EMITTERS' in env)) env.BUSSCOPE_EMITTERS = emitters.scope;
  if (!('BUSSCOPE_EMITTER_CLASSES' in env) && emitters.classes.length > 0) env.BUSSCOPE_EMITTER_CLASSES = emitters.classes.join(',');
  return 'injected';
}

/**
 * One NODE_OPTIONS argument, quoted when Node would otherwise split or unescape it: Node splits
 * NODE_OPTIONS on spaces outside double quotes, and inside them a backslash escapes the next
 * character (so a Windows path's backslashes are doubled).
 */
export function quoteNodeOption(value: string): string {
  return /[\s"\\]/.test(value) ? `"${value.replace(/[\\"]/g, '\\$&')}"` : value;
}

/** NODE_OPTIONS split into arguments the way Node does (ParseNodeOptionsEnvVar); undefined when Node would reject it. */
export function splitNodeOptions(value: string): string[] | undefined {
  const args: string[] = [];
  let current = '';
  let inString = false;
  let started = false;
  for (let i = 0; i < value.length; i++) {
    let c = value[i];
    if (c === '\\' && inString) {
      if (i + 1 === value.length) return undefined;
      c = value[++i];
    } else if (c === ' ' && !inString) {
      if (started) args.push(current);
      current = '';
      started = false;
      continue;
    } else if (c === '"') {
      inString = !inString;
      started = true;
      continue;
    }
    current += c;
    started = true;
  }
  if (inString) return undefined;
  if (started) args.push(current);
  return args;
}

/** A Busscope register script: this extension's (any version), or the package's `busscope-probe/register`. */
const REGISTER_PATH = /(?:^|[\\/=])busscope-probe[\\/]register(?:\.[cm]?js)?$|busscope[^\\/]*[\\/]dist[\\/]probe[\\/]register\.[cm]?js$/i;

/** Whether these NODE_OPTIONS already load a Busscope register script (`--require`, `-r` or `--import`). */
export function loadsBusscopeRegister(nodeOptions: string, registerScript: string): boolean {
  const args = splitNodeOptions(nodeOptions) ?? nodeOptions.split(/\s+/);
  return args.some((arg) => {
    const value = arg.replace(/^(?:--require|-r|--import)=/, '');
    return value === registerScript || REGISTER_PATH.test(value.replace(/^file:\/\//, ''));
  });
}

/** The `busscope.debug.*` settings the register injection reads, below `busscope.debug.`. */
export const EMITTER_SETTING = {
  instrumentEmitters: 'instrumentEmitters',
  emitters: 'emitters',
  emitterClasses: 'emitterClasses',
} as const;

export const EMITTER_SETTING_DEFAULTS = {
  [EMITTER_SETTING.instrumentEmitters]: true,
  [EMITTER_SETTING.emitters]: 'all' as EmitterScope,
  [EMITTER_SETTING.emitterClasses]: [] as readonly string[],
} as const;

export interface EmitterSettings {
  readonly instrumentEmitters: boolean;
  readonly scope: EmitterScope;
  readonly classes: readonly string[];
}

/**
 * The emitter settings from a `read(key)` over `busscope.debug`. A value of the wrong type (a
 * hand-edited settings.json) falls back to the default; class names are trimmed, and empty ones or
 * ones with a comma (the separator in BUSSCOPE_EMITTER_CLASSES) are dropped.
 */
export function readEmitterSettings(read: (key: string) => unknown): EmitterSettings {
  const on = read(EMITTER_SETTING.instrumentEmitters);
  const scope = read(EMITTER_SETTING.emitters);
  const classes = read(EMITTER_SETTING.emitterClasses);
  return {
    instrumentEmitters: typeof on === 'boolean' ? on : EMITTER_SETTING_DEFAULTS.instrumentEmitters,
    scope: (EMITTER_SCOPES as readonly unknown[]).includes(scope) ? (scope as EmitterScope) : EMITTER_SETTING_DEFAULTS.emitters,
    classes: Array.isArray(classes)
      ? [
          ...new Set(
            classes
              .filter((c): c is string => typeof c === 'string')
              .map((c) => c.trim())
              .filter((c) => c !== '' && !c.includes(',')),
          ),
        ]
      : [],
  };
}

/** The globalState key remembering that the first-injection notice was shown. */
export const INJECTION_NOTICE_KEY = 'busscope.debug.instrumentEmittersNoticeShown';
export const INJECTION_NOTICE_ACTION = "Don't instrument emitters";
export const INJECTION_NOTICE_MESSAGE =
  'Busscope loads its probe into Node programs you debug (NODE_OPTIONS=--require …), so their EventEmitters and EventTargets show up in Busscope with nothing installed. The setting busscope.debug.instrumentEmitters turns this off.';

export interface NoticeMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/**
 * The one-time notice after the first injection: says what was injected, with an action that turns
 * the setting off. Remembered in `state` (the extension's globalState), so it shows once per user,
 * not once per window — even when two launches resolve at the same moment.
 */
export class InjectionNotice {
  private showing = false;

  constructor(
    private readonly state: NoticeMemento,
    private readonly show: (message: string, action: string) => PromiseLike<string | undefined>,
    private readonly turnOff: () => PromiseLike<void>,
  ) {}

  /** Call after each injection; resolves once the user answered (or at once when nothing is shown). */
  async injected(): Promise<void> {
    if (this.showing || this.state.get<boolean>(INJECTION_NOTICE_KEY) === true) return;
    this.showing = true;
    try {
      await this.state.update(INJECTION_NOTICE_KEY, true);
      const answer = await this.show(INJECTION_NOTICE_MESSAGE, INJECTION_NOTICE_ACTION);
      if (answer === INJECTION_NOTICE_ACTION) await this.turnOff();
    } finally {
      this.showing = false;
    }
  }
}
