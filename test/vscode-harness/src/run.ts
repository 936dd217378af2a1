/// <reference path="./tests-module.d.ts" />
// The harness's work, bundled as dist/suite.js (mocha + test/vscode/**/*.test.ts): runs the mocha
// suite with the real `vscode` API and writes the results as JSON for the Node-side test
// (test/e2e/vscode-server.test.ts) that waits for them.
// Results file: $BUSSCOPE_VSCODE_RESULTS, else <globalStorage>/results.json. First a
// `{ state: 'running' }` record, then the `SuiteResults`; each written atomically (temp + rename).
// Optional: $BUSSCOPE_VSCODE_GREP (only matching tests), $BUSSCOPE_MOCHA_TIMEOUT (ms per test).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import loadTests from 'busscope:vscode-tests';
import { runSuite, type SuiteResults, type SuiteRunning } from '../../vscode/suite';

/** The part of `vscode.ExtensionContext` the harness uses (it is type-checked without `vscode`). */
export interface HarnessContext {
  readonly globalStorageUri: { readonly fsPath: string };
}

export function runHarness(context: HarnessContext): void {
  const file = process.env.BUSSCOPE_VSCODE_RESULTS || path.join(context.globalStorageUri.fsPath, 'results.json');
  const running: SuiteRunning = { state: 'running', startedAt: new Date().toISOString(), pid: process.pid };
  writeAtomically(file, running);
  let vscodeVersion: string | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- only inside VS Code's extension host
    vscodeVersion = (require('vscode') as { version?: string }).version;
  } catch {
    vscodeVersion = undefined;
  }
  const timeout = Number(process.env.BUSSCOPE_MOCHA_TIMEOUT);
  runSuite({
    loadTests,
    vscodeVersion,
    grep: process.env.BUSSCOPE_VSCODE_GREP || undefined,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
  }).then(
    (results) => writeAtomically(file, results),
    (e: unknown) => {
      const failed: SuiteResults = {
        state: 'done',
        passes: 0,
        failures: 1,
        pending: 0,
        defined: 0,
        vscodeVersion,
        startedAt: running.startedAt,
        durationMs: 0,
        tests: [
          {
            title: 'run the suite',
            fullTitle: 'harness: run the suite',
            state: 'failed',
            error: { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined },
          },
        ],
      };
      writeAtomically(file, failed);
    },
  );
}

function writeAtomically(file: string, data: SuiteResults | SuiteRunning): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n');
  renameSync(tmp, file);
}
