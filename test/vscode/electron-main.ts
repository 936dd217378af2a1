/// <reference path="../vscode-harness/src/tests-module.d.ts" />
// @vscode/test-electron's `extensionTestsPath` entry (bundled by run-electron.ts): VS Code calls
// `run()` in its extension host; a rejection fails the run.
import * as vscode from 'vscode';
import loadTests from 'busscope:vscode-tests';
import { describeFailures, runSuite } from './suite';

export async function run(): Promise<void> {
  const results = await runSuite({ loadTests, vscodeVersion: vscode.version, grep: process.env.BUSSCOPE_VSCODE_GREP || undefined });
  console.log(`[vscode suite] ${results.passes} passed, ${results.failures} failed, ${results.pending} pending`);
  if (results.failures > 0) throw new Error(`${results.failures} VS Code test(s) failed:\n${describeFailures(results)}`);
  if (results.defined === 0) throw new Error('the VS Code suite defines no test');
  if (results.passes !== results.defined) throw new Error(`${results.defined - results.passes} of the suite's ${results.defined} tests did not pass`);
}
