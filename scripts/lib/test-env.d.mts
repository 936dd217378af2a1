// Types of test-env.mjs for the TypeScript tests that import it.
export declare const CODE_SERVER_VERSION: string;
export declare const NODE_MAJOR: string;
export declare function cacheDir(env?: NodeJS.ProcessEnv): string;
export declare function manifestFile(env?: NodeJS.ProcessEnv): string;
export declare function npmChildEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export declare function aptInstallHint(pkg: string): string;

export type ChromiumLookup =
  | { readonly found: true; readonly path: string; readonly source: 'CHROME_PATH' | 'PATH' | 'playwright' }
  | { readonly found: false; readonly reason: string; /** The one command that makes it found. */ readonly fix: string };
export declare function findChromium(env?: NodeJS.ProcessEnv): ChromiumLookup;

export interface VscodeServerInstall {
  readonly cacheDir: string;
  readonly codeServerVersion: string;
  /** Node 24, which code-server requires. */
  readonly node: string;
  /** code-server's CLI entry, run as `node <entry> …`. */
  readonly codeServerEntry: string;
  /** The Chrome/Chromium that opens the workbench. */
  readonly chromium: string;
}
export type InstallLookup =
  { readonly found: true; readonly install: VscodeServerInstall } | { readonly found: false; readonly reason: string; readonly fix?: string };
export declare function findVscodeServer(env?: NodeJS.ProcessEnv): InstallLookup;
