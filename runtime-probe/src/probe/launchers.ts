// Which process of a launch chain is the app, for the register hook (register.ts). NODE_OPTIONS is
// inherited, so under `npm start`, `yarn dev`, nodemon or tsx's CLI the first Node process to load
// the hook is the tool, and the app is its child. What a process runs as its main script tells them
// apart:
//  - a package manager's CLI (npm, npx, yarn, pnpm, corepack): a launcher, never the app;
//  - any other main script under node_modules (nodemon, tsx's and ts-node-dev's CLIs, mocha…): a tool
//    that either spawns the app (a launcher) or runs it in its own process (ts-node's `ts-node
//    app.ts`, a test runner). Undecided until the main script has run: it is the app if by then it
//    loaded a module of the user's own (outside node_modules);
//  - anything else (the user's file, also under `--require ts-node/register` or `--import tsx`, the
//    REPL, `-e`): the app.

export type MainScriptKind = 'app' | 'package-manager' | 'tool';

const NODE_MODULES = /[\\/]node_modules[\\/]/;
/** Yarn 2+ runs from a release file checked into the project. */
const YARN_RELEASE = /[\\/]\.yarn[\\/]releases[\\/][^\\/]+$/;
const PACKAGE_MANAGER_PACKAGE = /[\\/]node_modules[\\/](?:npm|yarn|pnpm|corepack|@yarnpkg[\\/]cli(?:-dist)?)[\\/]/;
const PACKAGE_MANAGER_FILE = /[\\/](?:npm-cli|npx-cli|yarn|yarnpkg|pnpm|pnpx|corepack)\.c?js$/;

/** What a main script is, from its real path (symlinks such as /usr/bin/npm resolved). */
export function mainScriptKind(realMain: string | undefined): MainScriptKind {
  if (realMain === undefined || realMain === '') return 'app';
  if (YARN_RELEASE.test(realMain) || PACKAGE_MANAGER_PACKAGE.test(realMain) || PACKAGE_MANAGER_FILE.test(realMain)) return 'package-manager';
  return NODE_MODULES.test(realMain) ? 'tool' : 'app';
}

/** A module file of the user's own: an absolute path outside node_modules. */
export function isUserModule(file: string): boolean {
  return (file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith('\\\\')) && !NODE_MODULES.test(file) && !YARN_RELEASE.test(file);
}
