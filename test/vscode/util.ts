// Helpers for the mocha suite that runs inside VS Code (real `vscode` API).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'busscope.busscope';

/** The installed Busscope extension (fails the test when it is not installed). */
export function busscopeExtension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed (installed: ${vscode.extensions.all.map((e) => e.id).join(', ')})`);
  return ext;
}

/** Activates Busscope (a no-op when it is active) and returns its extension. */
export async function activateBusscope(): Promise<vscode.Extension<unknown>> {
  const ext = busscopeExtension();
  await ext.activate();
  return ext;
}

/** Polls `probe` until it returns something other than undefined/false; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
