// Busscope's VS Code side against the real `vscode` API and a real demo app: run the demo through
// the command, attach by pid, see its buses and types in the Subscriptions tree, its leak in the
// Warnings tree and in Problems, jump to a site, export a valid Chrome trace, detach (no socket
// left, problems cleared), stop the demo, and open a recorded trace into the same views.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BusscopeApi } from '../../extension/src/extension';
import type { SessionResult } from '../../extension/src/commands/services';
import type { DemoResult } from '../../extension/src/commands/demoCommands';
import type { BusscopeNode } from '../../extension/src/views/nodes';
import { DemoRunner, locateDemo } from '../../extension/src/demo/demoRunner';
import { validateChromeTrace } from '../../extension/src/export/validateChromeTrace';
import { SETTING_DEFAULTS } from '../../runtime-probe/src/analysis/settings';
import { activateBusscope, waitFor } from './util';

interface Manifest {
  readonly activationEvents?: readonly string[];
  readonly contributes: {
    readonly commands: readonly { readonly command: string; readonly title: string }[];
    readonly configuration: {
      readonly properties: Readonly<Record<string, { readonly default: unknown; readonly description?: string; readonly markdownDescription?: string }>>;
    };
    readonly views: Readonly<Record<string, readonly { readonly id: string }[]>>;
    readonly viewsContainers: { readonly activitybar: readonly { readonly id: string }[] };
  };
}

/** Sockets of this extension host connected to `port` (Busscope runs in this same process). */
function socketsTo(port: number): net.Socket[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is net.Socket => h instanceof net.Socket && h.remotePort === port && !h.destroyed);
}

function label(item: vscode.TreeItem): string {
  const l = item.label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}

function busscopeDiagnostics(): [vscode.Uri, vscode.Diagnostic][] {
  const out: [vscode.Uri, vscode.Diagnostic][] = [];
  for (const [uri, diags] of vscode.languages.getDiagnostics()) for (const d of diags) if (d.source === 'Busscope') out.push([uri, d]);
  return out;
}

describe('Busscope sessions, views and commands', function () {
  this.timeout(60_000);
  let api: BusscopeApi;
  let manifest: Manifest;
  let tmp: string;
  let demoPid = 0;
  let session: SessionResult;
  let appPort = 0;

  before(async () => {
    const ext = await activateBusscope();
    api = ext.exports as BusscopeApi;
    manifest = ext.packageJSON as Manifest;
    assert.ok(api?.sessions, 'activate returns the Busscope API');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-vscode-'));
    // A private discovery folder: exercises the setting, and other apps on the machine cannot interfere.
    await vscode.workspace.getConfiguration('busscope').update('discoveryDirectory', path.join(tmp, 'apps'), vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    try {
      await vscode.commands.executeCommand('busscope.stopDemo');
      api?.sessions.clear();
    } finally {
      await vscode.workspace.getConfiguration('busscope').update('discoveryDirectory', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('declares its views, settings with defaults, and lazy activation', () => {
    assert.deepEqual(
      manifest.contributes.viewsContainers.activitybar.map((c) => c.id),
      ['busscope'],
    );
    assert.deepEqual(
      manifest.contributes.views.busscope.map((v) => v.id),
      ['busscope.apps', 'busscope.subscriptions', 'busscope.warnings'],
    );
    const props = manifest.contributes.configuration.properties;
    for (const [key, value] of Object.entries(SETTING_DEFAULTS)) {
      const p = props[`busscope.${key}`];
      assert.ok(p, `busscope.${key} is contributed`);
      assert.deepEqual(p.default, value, `default of busscope.${key}`);
      assert.ok((p.description ?? p.markdownDescription ?? '').length > 20, `busscope.${key} is documented`);
    }
    assert.ok(!(manifest.activationEvents ?? []).includes('*') && !(manifest.activationEvents ?? []).includes('onStartupFinished'), 'no activation at startup');
    for (const c of [
      'busscope.attach',
      'busscope.attachToAddress',
      'busscope.detach',
      'busscope.runDemo',
      'busscope.exportTrace',
      'busscope.openTrace',
      'busscope.clear',
    ]) {
      assert.ok(
        manifest.contributes.commands.some((x) => x.command === c),
        `${c} is contributed`,
      );
    }
  });

  it('runs the demo app and attaches to it through the picker, and by pid', async () => {
    const demo = await vscode.commands.executeCommand<DemoResult>('busscope.runDemo');
    assert.ok(demo && demo.pid > 0, 'the demo started');
    demoPid = demo.pid;
    assert.equal(api.demo.running, true);
    // The picker: the demo (the only app in this discovery folder) is its first item; accept it.
    await waitFor("the demo's discovery file", () => api.sessions.listApps().some((a) => a.pid === demoPid));
    const picking = Promise.resolve(vscode.commands.executeCommand<SessionResult | undefined>('busscope.attach'));
    let picked: SessionResult | undefined;
    for (let attempt = 0; attempt < 20 && picked === undefined; attempt++) {
      await new Promise((r) => setTimeout(r, 250));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      picked = await Promise.race([picking, new Promise<undefined>((r) => setTimeout(() => r(undefined), 250))]);
    }
    assert.ok(picked, 'accepting the first item of the Attach picker attached');
    assert.equal(picked.pid, demoPid);
    // Attaching again (by pid, as code would) gives the same session.
    session = await vscode.commands.executeCommand<SessionResult>('busscope.attach', { pid: demoPid });
    assert.equal(session.sessionId, picked.sessionId);
    assert.equal(api.sessions.sessions.length, 1);
    assert.equal(session.pid, demoPid);
    assert.equal(session.live, true);
    assert.equal(session.name, 'busscope-demo');
    const s = api.sessions.find(session.sessionId)!;
    assert.ok(s.source.kind === 'app');
    appPort = s.source.kind === 'app' ? s.source.app.port : 0;
    assert.equal(socketsTo(appPort).length, 1, 'one socket to the demo');
    // The Apps tree lists the session.
    const apps = api.views.apps.getChildren();
    assert.ok(apps.some((n) => n.kind === 'session' && n.sessionId === session.sessionId));
  });

  it("fills the Subscriptions tree with the demo's buses, types and subscriptions", async () => {
    await vscode.commands.executeCommand('busscope.subscriptions.focus');
    const tree = api.views.subscriptions;
    const buses = await waitFor('the three buses in the tree', () => {
      const nodes = tree.getChildren();
      const names = nodes.map((n) => label(tree.getTreeItem(n))).sort();
      return names.join() === 'audio,gameplay,ui' ? nodes : undefined;
    });
    const gameplay = buses.find((n) => label(tree.getTreeItem(n)) === 'gameplay')!;
    // A live app shows its current rate.
    assert.match(String(tree.getTreeItem(gameplay).description), /types · .*listeners · [\d.k]+\/s$/);
    const types = await waitFor('player.health under gameplay', () => {
      const t = tree.getChildren(gameplay);
      return t.some((n) => label(tree.getTreeItem(n)) === 'player.health') ? t : undefined;
    });
    const health = types.find((n) => label(tree.getTreeItem(n)) === 'player.health')!;
    const subs = tree.getChildren(health);
    assert.ok(subs.length > 0, 'player.health has subscriptions');
    const hud = subs.map((n) => tree.getTreeItem(n)).find((i) => label(i) === 'HealthBar.onHealthChanged');
    assert.ok(hud, `HealthBar.onHealthChanged among ${subs.map((n) => label(tree.getTreeItem(n))).join(', ')}`);
    assert.equal(hud.command?.command, 'busscope.openSite', 'a click opens the subscribe site');

    // The status bar names the app, its rate and its warnings; a click opens the inspector.
    const status = await waitFor('the status bar to show the app', () => {
      const c = api.views.statusBar.current;
      return c.visible && /busscope-demo \d/.test(c.text) ? c : undefined;
    });
    assert.match(status.text, /^\$\(pulse\) busscope-demo [\d.]+k?\/s/);
    assert.match(status.tooltip, new RegExp(`busscope-demo \\(pid ${demoPid}\\)`));
  });

  it("shows the demo's leak in the Warnings tree and as a Problem at its subscribe site", async () => {
    const tree = api.views.warnings;
    const leak = await waitFor(
      'a listener-growth warning',
      () => {
        const s = api.sessions.find(session.sessionId)!;
        const w = s.warnings.find((x) => x.kind === 'listener-growth' && x.subjects.types.some((t) => t.type === 'player.health'));
        return w === undefined ? undefined : w;
      },
      20_000,
    );
    const nodes = tree.getChildren();
    const node = nodes.find((n): n is Extract<BusscopeNode, { kind: 'warning' }> => n.kind === 'warning' && n.warningId === leak.id);
    assert.ok(node, 'the leak is in the Warnings tree');
    assert.equal(label(tree.getTreeItem(node)), leak.title);

    const [uri, diagnostic] = await waitFor(
      'the leak as a Busscope problem',
      () => busscopeDiagnostics().find(([, d]) => d.code === 'listener-growth'),
      10_000,
    );
    assert.equal(diagnostic.severity <= vscode.DiagnosticSeverity.Warning, true);
    const site = leak.sites[0];
    assert.equal(uri.fsPath, site.file.startsWith('file://') ? vscode.Uri.parse(site.file).fsPath : site.file);
    assert.equal(diagnostic.range.start.line, site.line - 1);
    assert.ok(fs.existsSync(uri.fsPath), `the problem points at an existing file: ${uri.fsPath}`);

    // Clicking the warning opens its site in an editor.
    const opened = await vscode.commands.executeCommand<boolean>('busscope.openSite', node);
    assert.equal(opened, true);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.fsPath, uri.fsPath);
    assert.equal(editor.selection.active.line, site.line - 1);

    // The same rule as the inspector's: a site naming a network share or a URL is never opened.
    for (const file of ['//attacker/share/x.ts', '\\\\attacker\\share\\x.ts', 'https://evil.example/x.ts']) {
      const refused = await vscode.commands.executeCommand<boolean>('busscope.openSite', { file, line: 1, column: 1, functionName: null });
      assert.equal(refused, false, `refused: ${file}`);
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, uri.fsPath, 'the editor did not change');
    }
  });

  it('exports a valid Chrome trace of the session', async () => {
    const file = path.join(tmp, 'demo.trace.json');
    const written = await vscode.commands.executeCommand<{ file: string; bytes: number }>('busscope.exportTrace', { sessionId: session.sessionId, file });
    assert.equal(written.file, file);
    const trace = JSON.parse(fs.readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string; args?: { name?: string } }[] };
    assert.deepEqual(validateChromeTrace(trace).problems, []);
    assert.ok(trace.traceEvents.filter((e) => e.ph === 'X').length > 10, 'dispatch slices');
    const processes = trace.traceEvents
      .filter((e) => e.ph === 'M' && e.name === 'process_name')
      .map((e) => e.args?.name)
      .sort();
    assert.deepEqual(processes, ['bus audio', 'bus gameplay', 'bus ui']);
  });

  it('detaches without leaving a socket, and clears its problems', async () => {
    const count = await vscode.commands.executeCommand<number>('busscope.detach', { sessionId: session.sessionId });
    assert.equal(count, 1);
    const s = api.sessions.find(session.sessionId)!;
    assert.equal(s.isLive, false);
    assert.equal(s.connected, false);
    await waitFor('the socket to close', () => socketsTo(appPort).length === 0, 3000);
    await waitFor('Busscope problems to clear', () => busscopeDiagnostics().length === 0, 3000);
    // The model stays inspectable until cleared, without a rate: the app is no longer watched.
    const tree = api.views.subscriptions;
    const buses = tree.getChildren();
    assert.ok(buses.length >= 3);
    for (const bus of buses) {
      const item = tree.getTreeItem(bus);
      assert.doesNotMatch(String(item.description), /\/s/, `${label(item)} shows no rate once detached`);
      for (const type of tree.getChildren(bus)) assert.doesNotMatch(String(tree.getTreeItem(type).description), /\/s/);
    }
    await vscode.commands.executeCommand('busscope.clear');
    assert.equal(api.sessions.sessions.length, 0);
    assert.equal(await vscode.commands.executeCommand('busscope.stopDemo'), true);
    assert.equal(api.demo.running, false);
    assert.equal(fs.readdirSync(path.join(tmp, 'apps')).filter((f) => f.endsWith('.json')).length, 0, 'the demo removed its discovery file');
  });

  it('opens a recorded trace into the same views', async () => {
    const script = locateDemo(vscode.extensions.getExtension('busscope.busscope')!.extensionPath);
    assert.ok(script, 'the demo ships with the extension');
    const file = path.join(tmp, 'run.bustrace');
    const recorder = new DemoRunner();
    const exited = new Promise<void>((resolve) => recorder.onDidExit(() => resolve()));
    await recorder.start({ script, args: ['--duration', '1.5', '--quiet'], env: { BUSSCOPE: '0', BUSSCOPE_RECORD: file } });
    await exited;
    const opened = await vscode.commands.executeCommand<SessionResult>('busscope.openTrace', { file });
    assert.equal(opened.live, false);
    const s = api.sessions.find(opened.sessionId)!;
    assert.equal(s.kind, 'trace');
    const tree = api.views.subscriptions;
    const names = tree
      .getChildren()
      .map((n) => label(tree.getTreeItem(n)))
      .sort();
    assert.deepEqual(names, ['audio', 'gameplay', 'ui']);
    assert.ok(s.warnings.length > 0, 'the analyses ran on the trace');
    await vscode.commands.executeCommand('busscope.clear', { sessionId: opened.sessionId });
    assert.equal(api.sessions.sessions.length, 0);
  });
});
