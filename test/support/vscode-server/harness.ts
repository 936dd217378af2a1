// The Node side of the harness extension (test/vscode-harness): build its VSIX, and wait for the
// results file it writes from inside VS Code's extension host.
import { readFileSync } from 'node:fs';
import type { SuiteResults, SuiteRunning } from '../../vscode/results';

export { buildHarnessVsix, vscodeTestFiles } from '../../vscode-harness/build';
export { describeFailures, type SuiteResults } from '../../vscode/results';

/** The environment variable that tells the harness where to write (pass it in the server's env). */
export const RESULTS_ENV = 'BUSSCOPE_VSCODE_RESULTS';

function read(file: string): SuiteResults | SuiteRunning | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SuiteResults | SuiteRunning;
  } catch {
    return undefined; // not written yet (it is written atomically, so never half)
  }
}

/**
 * Waits for the harness's final results. The harness only starts once the workbench is open in a
 * browser (onStartupFinished), so open it first. `onWait` is called about every 5 s while waiting.
 */
export async function waitForSuiteResults(file: string, timeoutMs = 120_000, onWait?: (state: string) => void): Promise<SuiteResults> {
  const deadline = Date.now() + timeoutMs;
  let last: SuiteResults | SuiteRunning | undefined;
  let nextReport = Date.now() + 5000;
  while (Date.now() < deadline) {
    last = read(file);
    if (last?.state === 'done') return last;
    if (onWait && Date.now() >= nextReport) {
      onWait(last ? `suite running since ${last.startedAt}` : 'harness not activated yet');
      nextReport = Date.now() + 5000;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    last
      ? `the VS Code suite started (${last.startedAt}) but did not finish within ${timeoutMs} ms`
      : `the harness extension never wrote ${file} within ${timeoutMs} ms (not installed, not activated, or the workbench never opened)`,
  );
}
