// One real-VS-Code session for an e2e test, start to finish: package Busscope's VSIX and the harness
// VSIX, install them into a fresh code-server, open the workbench in chromium, hand the test a
// `VscodeSession`, then close the browser, stop the server's process group and fail the test if any
// process of the run survived. Screenshots/logs: .test-output/e2e/<name>/.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { E2eArtifacts } from './artifacts';
import { launchChromium, Workbench } from './browser';
import { buildHarnessVsix, RESULTS_ENV, waitForSuiteResults, type SuiteResults } from './harness';
import { findVscodeServerInstall, INSTALL_COMMAND, missingInstallMessage, type VscodeServerInstall } from './install';
import { describeProcesses, processesMentioning } from './processes';
import { CodeServer, installExtensions } from './server';
import { ensureBusscopeVsix } from './vsix';

export interface VscodeSession {
  readonly install: VscodeServerInstall;
  readonly run: E2eArtifacts;
  readonly server: CodeServer;
  readonly workbench: Workbench;
  /** The folder the workbench has open (under the run's temp dir). */
  readonly workspace: string;
  /** Waits for the harness's mocha results (only when the session installed the harness). */
  waitForSuite(timeoutMs?: number): Promise<SuiteResults>;
}

export interface SessionOptions {
  /** Install the harness extension, which runs test/vscode/**\/*.test.ts on startup. Default true. */
  readonly harness?: boolean;
  /** More VSIX files to install. */
  readonly extraVsixes?: readonly string[];
  /** Environment of the server and its extension host. */
  readonly env?: Readonly<Record<string, string>>;
  /** User settings. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Populates the workspace folder before the server opens it. */
  readonly prepareWorkspace?: (dir: string) => void | Promise<void>;
}

/**
 * node:test options for a test that needs the VS Code server: skipped (loudly) when it is not
 * installed, except with CI=true, where the test runs and fails in `withVscodeSession`.
 */
export function vscodeServerTestOptions(timeoutMs = 300_000): { skip: string | false; timeout: number } {
  const lookup = findVscodeServerInstall();
  if (!lookup.found) process.stderr.write(missingInstallMessage(lookup));
  const skip = !lookup.found && process.env.CI !== 'true' ? `the real-VS-Code tier cannot run: ${lookup.reason}` : false;
  return { skip, timeout: timeoutMs };
}

export async function withVscodeSession(name: string, options: SessionOptions, body: (session: VscodeSession) => Promise<void>): Promise<void> {
  const lookup = findVscodeServerInstall();
  if (!lookup.found) {
    assert.fail(
      `the real-VS-Code tier cannot run (${lookup.reason}); to fix: ${lookup.fix ?? INSTALL_COMMAND} (\`npm test\` provisions code-server and Node 24 by itself)`,
    );
  }
  const { install } = lookup;
  const run = E2eArtifacts.create(name);
  let passed = false;
  let server: CodeServer | undefined;
  let browser: BrowserContext | undefined;
  try {
    run.log(`code-server ${install.codeServerVersion}`);
    const harness = options.harness ?? true;
    const vsixes = await Promise.all([ensureBusscopeVsix((m) => run.log(m)), ...(harness ? [buildHarnessVsix(path.join(run.tempDir, 'harness'))] : [])]);
    vsixes.push(...(options.extraVsixes ?? []));
    await installExtensions(install, run.tempDir, vsixes);
    run.log(`installed ${vsixes.map((v) => path.basename(v)).join(', ')}`);

    const workspace = path.join(run.tempDir, 'workspace');
    const resultsFile = path.join(run.tempDir, 'vscode-suite-results.json');
    await options.prepareWorkspace?.(workspace);
    server = await CodeServer.start({
      install,
      runDir: run.tempDir,
      workspace,
      settings: options.settings,
      env: { ...(harness ? { [RESULTS_ENV]: resultsFile } : {}), ...options.env },
    });
    run.collectLog(server.dirs.logFile, 'code-server.log');
    run.collectLog(path.join(server.dirs.userDataDir, 'logs'), 'vscode');
    if (harness) run.collectLog(resultsFile, 'vscode-suite-results.json');
    run.log(`code-server ready on 127.0.0.1:${server.port} (pgid ${server.pid})`);

    browser = await launchChromium(install, path.join(run.tempDir, 'chromium-profile'));
    const workbench = await Workbench.open(browser, server.url, run);
    run.log('workbench open');
    await workbench.screenshot('workbench');

    const waitForSuite = async (timeoutMs = 120_000): Promise<SuiteResults> => {
      assert.ok(harness, 'this session has no harness extension');
      const results = await waitForSuiteResults(resultsFile, timeoutMs, (s) => run.log(`waiting for the VS Code suite: ${s}`));
      for (const t of results.tests) {
        run.log(`  [vscode ${results.vscodeVersion}] ${t.state}: ${t.fullTitle}${t.error ? ` — ${t.error.message.split('\n')[0]}` : ''}`);
      }
      return results;
    };
    await body({ install, run, server, workbench, workspace, waitForSuite });
    passed = true;
  } catch (e) {
    await screenshotOnFailure(browser, run);
    throw e;
  } finally {
    let strayReport: string | undefined;
    try {
      await browser?.close();
      const stop = await server?.stop();
      if (stop)
        run.log(`stopped code-server's ${stop.stopped.length} processes${stop.forced ? ' (SIGKILL was needed)' : ''}:\n${describeProcesses(stop.stopped)}`);
      const strays = [...(stop?.strays ?? []), ...processesMentioning(run.tempDir)];
      if (strays.length) {
        strayReport = `processes left running after stop:\n${describeProcesses(strays)}`;
        run.log(strayReport);
      } else {
        run.log('no process of the run is left');
      }
    } finally {
      run.finish(passed && !strayReport);
    }
    if (passed && strayReport) assert.fail(strayReport);
  }
}

async function screenshotOnFailure(browser: BrowserContext | undefined, run: E2eArtifacts): Promise<void> {
  const page = browser?.pages()[0];
  if (!page) return;
  await page.screenshot({ path: run.screenshotPath('FAILURE') }).catch(() => undefined);
}
