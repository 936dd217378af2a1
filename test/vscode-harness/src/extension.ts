// The harness extension: installed next to Busscope in a real VS Code (code-server) and activated on
// startup (`onStartupFinished`), it runs the mocha suite of test/vscode. The suite is a separate bundle
// (dist/suite.js, with an inline source map) loaded only after source maps are enabled, so failures'
// stack traces point into test/vscode/*.ts.
import type { HarnessContext } from './run';

export function activate(context: HarnessContext): void {
  process.setSourceMapsEnabled(true);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only now, after source maps are on
  const { runHarness } = require('./suite.js') as typeof import('./run');
  runHarness(context);
}

export function deactivate(): void {}
