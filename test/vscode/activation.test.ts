// Runs inside a real VS Code (extension host) with the real `vscode` API: through the harness
// extension in code-server here, through @vscode/test-electron elsewhere.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateBusscope, busscopeExtension } from './util';

interface ContributedCommand {
  readonly command: string;
}
interface Manifest {
  readonly contributes?: {
    readonly commands?: readonly ContributedCommand[];
    readonly views?: Readonly<Record<string, readonly { readonly id: string }[]>>;
  };
}

describe('Busscope activation', () => {
  it('is installed', () => {
    const ext = busscopeExtension();
    assert.equal((ext.packageJSON as { name?: string }).name, 'busscope');
  });

  it('activates without throwing', async () => {
    const ext = await activateBusscope();
    assert.equal(ext.isActive, true);
  });

  it('registers exactly the commands its manifest contributes', async () => {
    const ext = await activateBusscope();
    const manifest = ext.packageJSON as Manifest;
    const contributed = (manifest.contributes?.commands ?? []).map((c) => c.command).sort();
    // The workbench registers commands of its own for every contributed view (`<viewId>.focus`,
    // `.open`, `.resetViewLocation`, `.toggleVisibility`, `.removeView`): not the extension's. (Those of
    // view containers are `workbench.view.extension.<id>…`, outside `busscope.`.)
    const viewIds = Object.values(manifest.contributes?.views ?? {})
      .flat()
      .map((v) => v.id);
    const viewCommands = ['focus', 'open', 'resetViewLocation', 'toggleVisibility', 'removeView'];
    const derived = (cmd: string): boolean => viewIds.some((id) => viewCommands.some((suffix) => cmd === `${id}.${suffix}`));
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('busscope.') && !derived(c)).sort();
    const unregistered = contributed.filter((c) => !registered.includes(c));
    const undeclared = registered.filter((c) => !contributed.includes(c));
    assert.deepEqual(
      { unregistered, undeclared },
      { unregistered: [], undeclared: [] },
      'contributes.commands and the registered busscope.* commands differ: "unregistered" are declared in ' +
        'package.json but never registered by activate(); "undeclared" are registered but missing from package.json',
    );
  });
});
