// The environment a Node debug launch gets so the program's Busscope probe starts and writes its
// discovery file where Busscope looks. No `vscode` here.

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

/**
 * Adds BUSSCOPE=1 and the discovery folder to a Node launch configuration. Values the user set
 * (including `null`, which unsets a variable in js-debug) win. Attach configurations are returned
 * unchanged: their process is already running.
 */
export function injectProbeEnvironment<C extends InjectableConfiguration>(config: C, discoveryDirectory: string): C {
  if (config.request !== 'launch' || !NODE_DEBUG_TYPES.includes(config.type)) return config;
  const env: Record<string, string | null | undefined> = { ...(config.env ?? {}) };
  if (!('BUSSCOPE' in env)) env.BUSSCOPE = '1';
  if (!('BUSSCOPE_DISCOVERY_DIR' in env) && discoveryDirectory !== '') env.BUSSCOPE_DISCOVERY_DIR = discoveryDirectory;
  return { ...config, env };
}

