// End to end in a real VS Code: the packaged Busscope VSIX and the test-harness VSIX installed into a
// fresh code-server (VS Code server + web workbench), the workbench opened in Debian's chromium, the
// mocha suite of test/vscode run inside VS Code's extension host by the harness, one command driven
// through the real command palette, and nothing left running afterwards (withVscodeSession checks).
// Needs the VS Code server `npm test` provisions (`node scripts/provision.mjs`) (cached outside the clone); without it this test skips
// loudly, except with CI=true, where it fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeFailures, vscodeServerTestOptions, withVscodeSession } from '../support/vscode-server';

test('Busscope in a real VS Code server: VSIX installs, the VS Code suite passes, the palette runs commands, no strays', vscodeServerTestOptions(), () =>
  withVscodeSession('vscode-server', {}, async ({ workbench, waitForSuite }) => {
    // 1. The mocha suite (test/vscode), run inside VS Code by the harness extension.
    const results = await waitForSuite();

    // 2. The command palette path, on a built-in command whose result is visible in the DOM.
    // (VS Code 1.139 shows the settings editor as a modal over the workbench, not as a tab.)
    await workbench.runCommand('Preferences: Open Settings (UI)');
    const settings = workbench.page.locator('.settings-editor');
    await settings.waitFor({ state: 'visible', timeout: 20_000 });
    await workbench.page.getByText('Commonly Used').first().waitFor({ state: 'visible', timeout: 20_000 });
    await workbench.screenshot('settings-ui');
    assert.match(await settings.innerText(), /Commonly Used/);

    // The suite's verdict last, so a failing suite still leaves the palette step's evidence.
    assert.equal(results.failures, 0, `VS Code suite failures:\n${describeFailures(results)}`);
    // Every test the suite defines ran and passed: none skipped, none lost behind a failed hook.
    assert.ok(results.defined >= 1, 'the VS Code suite defines no test');
    assert.equal(
      results.passes,
      results.defined,
      `${results.defined - results.passes} of the suite's ${results.defined} tests did not pass (pending: ${results.pending})`,
    );
  }),
);
