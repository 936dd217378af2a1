// A code-server (VS Code server + web workbench, from the npm registry) for one test run: its own
// process group on a free loopback port, fresh user-data, extensions, config and XDG dirs under the
// run's temp dir, stopped by signalling the whole group.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { VscodeServerInstall } from './install';
import { stopProcessGroup, type StopResult } from './processes';

export interface CodeServerOptions {
  readonly install: VscodeServerInstall;
  /** Per-run temp dir: the server's state goes under <runDir>/code-server/. */
  readonly runDir: string;
  /** The folder the workbench opens. */
  readonly workspace: string;
  /** Extra environment for the server and so for its extension host (e.g. where the harness writes results). */
  readonly env?: Readonly<Record<string, string>>;
  /** User settings (settings.json); merged over quiet defaults for tests. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly readyTimeoutMs?: number;
}

/** Settings that keep a fresh workbench quiet and deterministic (no welcome page, tips, updates, trust). */
const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'window.restoreWindows': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface CodeServerDirs {
  readonly root: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly configFile: string;
  readonly logFile: string;
}

export function codeServerDirs(runDir: string): CodeServerDirs {
  const root = path.join(runDir, 'code-server');
  return {
    root,
    userDataDir: path.join(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    configFile: path.join(root, 'config.yaml'),
    logFile: path.join(root, 'code-server.log'),
  };
}

function serverEnv(install: VscodeServerInstall, dirs: CodeServerDirs, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // A VS Code around the test (its terminal sets VSCODE_IPC_HOOK_CLI etc.) must not capture the CLI.
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') continue;
    env[k] = v;
  }
  return {
    ...env,
    PATH: `${path.dirname(install.node)}${path.delimiter}${process.env.PATH ?? ''}`,
    // code-server keeps its own config and logs under XDG dirs: per run, not in the user's home.
    XDG_CONFIG_HOME: path.join(dirs.root, 'xdg-config'),
    XDG_DATA_HOME: path.join(dirs.root, 'xdg-data'),
    ...extra,
  };
}

function commonArgs(dirs: CodeServerDirs): string[] {
  return ['--config', dirs.configFile, '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir];
}

function prepareDirs(dirs: CodeServerDirs, settings: Readonly<Record<string, unknown>> = {}): void {
  mkdirSync(path.join(dirs.userDataDir, 'User'), { recursive: true });
  mkdirSync(dirs.extensionsDir, { recursive: true });
  writeFileSync(dirs.configFile, 'auth: none\n');
  writeFileSync(path.join(dirs.userDataDir, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...settings }, null, 2));
}

/** Runs `code-server … --install-extension <vsix>` for each VSIX into the run's extensions dir. */
export async function installExtensions(install: VscodeServerInstall, runDir: string, vsixes: readonly string[], timeoutMs = 120_000): Promise<string> {
  const dirs = codeServerDirs(runDir);
  prepareDirs(dirs);
  const args = [install.codeServerEntry, ...commonArgs(dirs), ...vsixes.flatMap((v) => ['--install-extension', v])];
  const child = spawn(install.node, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv(install, dirs) });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => void stopProcessGroup(child.pid ?? 0, 1000), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  await stopProcessGroup(child.pid ?? 0, 1000); // nothing should be left, but make sure
  const installed = (output.match(/successfully installed/gi) ?? []).length;
  if (code !== 0 || installed !== vsixes.length) {
    throw new Error(`code-server --install-extension failed (exit ${code}, ${installed}/${vsixes.length} installed):\n${output}`);
  }
  return output;
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export class CodeServer {
  private stopped: Promise<StopResult> | undefined;
  private readonly exitGuard = (): void => {
    // The test process is going away (timeout, crash): never leave the server behind.
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  };

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly port: number,
    readonly dirs: CodeServerDirs,
    readonly workspace: string,
  ) {
    process.on('exit', this.exitGuard);
  }

  /** Starts code-server and waits until it answers /healthz. Install extensions first (installExtensions). */
  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const { install, runDir, workspace } = options;
    const dirs = codeServerDirs(runDir);
    prepareDirs(dirs, options.settings);
    mkdirSync(workspace, { recursive: true });
    const port = await freeLoopbackPort();
    const log = openSync(dirs.logFile, 'a');
    const child = spawn(
      install.node,
      [
        install.codeServerEntry,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        ...commonArgs(dirs),
        workspace,
      ],
      { detached: true, stdio: ['ignore', log, log], env: serverEnv(install, dirs, options.env) },
    );
    closeSync(log);
    if (!child.pid) throw new Error('code-server did not start');
    const server = new CodeServer(child, child.pid, port, dirs, workspace);
    try {
      await server.waitUntilReady(options.readyTimeoutMs ?? 60_000);
    } catch (e) {
      await server.stop();
      throw e;
    }
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`;
  }

  logTail(lines = 40): string {
    try {
      return readFileSync(this.dirs.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`code-server exited (${this.child.exitCode ?? this.child.signalCode}) before it was ready:\n${this.logTail()}`);
      }
      try {
        const res = await fetch(`http://127.0.0.1:${this.port}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`code-server was not ready within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** Stops the whole process group (idempotent); the result lists any process that survived. */
  stop(): Promise<StopResult> {
    this.stopped ??= stopProcessGroup(this.pid).finally(() => process.off('exit', this.exitGuard));
    return this.stopped;
  }
}
