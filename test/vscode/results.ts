// The results of one run of the VS Code mocha suite, as the harness writes them to a JSON file.
// Plain types, no mocha and no `vscode`: the Node-side driver (test/support/vscode-server) reads them.

export interface TestOutcome {
  readonly title: string;
  readonly fullTitle: string;
  readonly file?: string;
  readonly state: 'passed' | 'failed' | 'pending';
  readonly durationMs?: number;
  readonly error?: { readonly message: string; readonly stack?: string };
}

export interface SuiteResults {
  readonly state: 'done';
  readonly passes: number;
  readonly failures: number;
  readonly pending: number;
  /** Tests the loaded files define (before any grep); every one must pass for the suite to pass. */
  readonly defined: number;
  readonly tests: readonly TestOutcome[];
  readonly vscodeVersion?: string;
  readonly startedAt: string;
  readonly durationMs: number;
}

/** What the harness writes before the run, so the driver can tell "activated, still running" from "never ran". */
export interface SuiteRunning {
  readonly state: 'running';
  readonly startedAt: string;
  readonly pid: number;
}

/** One line per failure, for assertion messages and logs. */
export function describeFailures(results: SuiteResults): string {
  return results.tests
    .filter((t) => t.state === 'failed')
    .map((t) => `✗ ${t.fullTitle}: ${t.error?.message ?? '(no message)'}`)
    .join('\n');
}
