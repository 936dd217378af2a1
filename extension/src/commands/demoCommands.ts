// Run Demo App / Stop Demo App: the demo shipped in the VSIX, started with the probe on, its output
// in the Busscope log, stopped when the extension deactivates.
import * as vscode from 'vscode';
import { locateDemo } from '../demo/demoRunner';
import type { Services } from './services';

export interface DemoResult {
  readonly pid: number;
  readonly script: string;
  /** False when it was already running. */
  readonly started: boolean;
}

async function runDemo(services: Services, arg: unknown): Promise<DemoResult | undefined> {
  const { demo, context, log } = services;
  const settings = services.settings();
  const script = locateDemo(context.extensionPath, settings.demoPath);
  if (script === undefined) {
    const where = settings.demoPath ?? 'dist/demo/demo.cjs';
    void vscode.window.showErrorMessage(`Busscope: the demo app is missing from this installation (looked for ${where} in ${context.extensionPath}).`);
    return undefined;
  }
  if (demo.running && demo.pid !== undefined) {
    offerAttach(services, demo.pid, 'is already running');
    return { pid: demo.pid, script, started: false };
  }
  const extraArgs = Array.isArray((arg as { args?: unknown } | undefined)?.args)
    ? ((arg as { args: unknown[] }).args.filter((a) => typeof a === 'string') as string[])
    : [];
  try {
    const pid = await demo.start({ script, runtime: settings.demoRuntime, discoveryDirectory: settings.discoveryDirectory, args: extraArgs });
    log.info(`demo app started: pid ${pid} (${script})`);
    offerAttach(services, pid, 'is running');
    return { pid, script, started: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(`demo app failed to start: ${message}`);
    void vscode.window.showErrorMessage(`Busscope: the demo app did not start: ${message}`);
    return undefined;
  }
}

function offerAttach(services: Services, pid: number, state: string): void {
  if (services.sessions.liveSessions.some((s) => s.app?.pid === pid)) return;
  void vscode.window.showInformationMessage(`Busscope: the demo app ${state} (pid ${pid}).`, 'Attach', 'Stop').then((choice) => {
    if (choice === 'Attach') void vscode.commands.executeCommand('busscope.attach', { pid });
    else if (choice === 'Stop') void services.demo.stop();
  });
}

async function stopDemo(services: Services): Promise<boolean> {
  if (!services.demo.running) return false;
  await services.demo.stop();
  return true;
}

export function registerDemoCommands(services: Services): vscode.Disposable[] {
  const { demo, log } = services;
  const setRunning = (running: boolean): void => void vscode.commands.executeCommand('setContext', 'busscope.demoRunning', running);
  const output = demo.onOutput((line) => log.info(`[demo] ${line}`));
  const started = demo.onDidStart(() => setRunning(true));
  const exited = demo.onDidExit((e) => {
    setRunning(false);
    if (e.stopped) log.info(`demo app (pid ${e.pid}) stopped`);
    else {
      log.warn(`demo app (pid ${e.pid}) exited: code ${e.code ?? '–'}, signal ${e.signal ?? '–'}`);
      if (e.code !== 0)
        void vscode.window.showWarningMessage(`Busscope: the demo app exited unexpectedly (code ${e.code ?? e.signal ?? '?'}). See the Busscope output.`);
    }
  });
  return [
    vscode.commands.registerCommand('busscope.runDemo', (arg?: unknown) => runDemo(services, arg)),
    vscode.commands.registerCommand('busscope.stopDemo', () => stopDemo(services)),
    new vscode.Disposable(() => {
      output.dispose();
      started.dispose();
      exited.dispose();
    }),
  ];
}
