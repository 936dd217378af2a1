// Runs the VS Code mocha suite (test/vscode/**/*.test.ts) inside an extension host and returns its
// results as plain data. Shared by the two ways the suite runs:
//   - the harness extension (test/vscode-harness), installed next to Busscope in a code-server, which
//     writes the results to a JSON file that the Node-side e2e test waits for;
//   - @vscode/test-electron (test/vscode/electron-main.ts), where a VS Code build can be downloaded.
// Mocha is bundled (esbuild) into the caller; the test files are bundled too and handed over as a
// `loadTests` function that `require`s them, so mocha never loads files from disk here.
// This module must not import `vscode`.
import Mocha from 'mocha';
import type { SuiteResults, TestOutcome } from './results';

export { describeFailures, type SuiteResults, type SuiteRunning, type TestOutcome } from './results';

export interface RunSuiteOptions {
  /** `require`s every test file; called after mocha's BDD globals (describe, it, …) are installed. */
  readonly loadTests: () => void;
  /** Per-test timeout; the extension host on a busy 2-core machine is slow. Default 20 s. */
  readonly timeoutMs?: number;
  /** Only tests whose full title matches (mocha's --grep). */
  readonly grep?: string;
  readonly vscodeVersion?: string;
}

const MAX_MESSAGE = 4000;

export function runSuite(options: RunSuiteOptions): Promise<SuiteResults> {
  const startedAt = new Date();
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec', // the human-readable log lands in the extension host's output
    timeout: options.timeoutMs ?? 20_000,
    ...(options.grep ? { grep: options.grep } : {}),
  });
  // What `mocha.loadFiles` does for each file, for our already-bundled files.
  const context = globalThis as unknown as Mocha.MochaGlobals;
  mocha.suite.emit(Mocha.Suite.constants.EVENT_FILE_PRE_REQUIRE, context, 'busscope-vscode-tests', mocha);
  try {
    options.loadTests();
  } catch (e) {
    // A test file that throws while loading is a failure of the suite, not of the harness.
    return Promise.resolve(loadFailure(e, startedAt, options.vscodeVersion));
  }
  mocha.suite.emit(Mocha.Suite.constants.EVENT_FILE_POST_REQUIRE, context, 'busscope-vscode-tests', mocha);

  // Counted before the run, so a test that never reports (a failed hook skips its siblings) shows.
  const defined = countDefined(mocha.suite, options.grep);
  return new Promise((resolve) => {
    const tests: TestOutcome[] = [];
    const runner = mocha.run(() => {
      resolve({
        state: 'done',
        passes: tests.filter((t) => t.state === 'passed').length,
        failures: tests.filter((t) => t.state === 'failed').length,
        pending: tests.filter((t) => t.state === 'pending').length,
        defined,
        tests,
        vscodeVersion: options.vscodeVersion,
        startedAt: startedAt.toISOString(),
        durationMs: Date.now() - startedAt.getTime(),
      });
    });
    const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;
    runner.on(EVENT_TEST_PASS, (t: Mocha.Test) => tests.push(outcome(t, 'passed')));
    runner.on(EVENT_TEST_PENDING, (t: Mocha.Test) => tests.push(outcome(t, 'pending')));
    // `fail` also fires for hooks (before/after): recorded as failures under the hook's title.
    runner.on(EVENT_TEST_FAIL, (t: Mocha.Test, err: unknown) => tests.push(outcome(t, 'failed', err)));
  });
}

/** Tests mocha will run: all of them, or those whose full title matches `grep` (as mocha matches it). */
function countDefined(suite: Mocha.Suite, grep: string | undefined): number {
  if (!grep) return suite.total();
  let n = 0;
  const visit = (s: Mocha.Suite): void => {
    for (const t of s.tests) if (t.fullTitle().includes(grep)) n++;
    for (const child of s.suites) visit(child);
  };
  visit(suite);
  return n;
}

function outcome(t: Mocha.Runnable, state: TestOutcome['state'], err?: unknown): TestOutcome {
  return {
    title: t.title,
    fullTitle: t.fullTitle(),
    file: t.file,
    state,
    durationMs: t.duration,
    ...(state === 'failed' ? { error: errorInfo(err) } : {}),
  };
}

function errorInfo(err: unknown): { message: string; stack?: string } {
  if (err instanceof Error) {
    return { message: err.message.slice(0, MAX_MESSAGE), stack: err.stack?.slice(0, MAX_MESSAGE) };
  }
  return { message: String(err).slice(0, MAX_MESSAGE) };
}

function loadFailure(e: unknown, startedAt: Date, vscodeVersion: string | undefined): SuiteResults {
  return {
    state: 'done',
    passes: 0,
    failures: 1,
    pending: 0,
    defined: 0,
    tests: [{ title: 'load the test files', fullTitle: 'load the test files', state: 'failed', error: errorInfo(e) }],
    vscodeVersion,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
}
