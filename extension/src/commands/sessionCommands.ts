// Attach to Running App… (live-refreshing picker), Attach to Address…, Detach, Clear, and the
// re-attach offers when an app that ended runs again.
import * as vscode from 'vscode';
import { isAddressError, nonLoopbackWarning, parseAddress } from '../sessions/address';
import { appPickEntries, type AppPickEntry } from '../sessions/appPicking';
import { AttachError } from '../sessions/attachError';
import type { Session } from '../sessions/session';
import { sessionIdOf } from '../views/nodes';
import { parseAddressArg, parseAttachArg } from './args';
import { sessionResult, type Services, type SessionResult } from './services';

interface AppItem extends vscode.QuickPickItem {
  readonly entry?: AppPickEntry;
  readonly action?: 'runDemo' | 'address';
}

/** Shows a failed attach to the user (and the log); rethrows for programmatic callers. */
function reportAttachError(services: Services, error: unknown, rethrow: boolean): undefined {
  const message = error instanceof AttachError ? error.message : `Busscope: ${error instanceof Error ? error.message : String(error)}`;
  services.log.error(`attach failed: ${message}${error instanceof AttachError && error.detail !== undefined ? ` (${error.detail})` : ''}`);
  void vscode.window.showErrorMessage(message);
  if (rethrow) throw error;
  return undefined;
}

function announceAttached(services: Services, session: Session): void {
  services.log.info(`attached to ${session.description}`);
  vscode.window.setStatusBarMessage(`Busscope: attached to ${session.description}`, 4000);
}

async function pickApp(services: Services): Promise<AppPickEntry | 'runDemo' | 'address' | undefined> {
  const { sessions } = services;
  const pick = vscode.window.createQuickPick<AppItem>();
  pick.title = 'Busscope: Attach to Running App';
  pick.placeholder = 'Pick an app running the Busscope probe (BUSSCOPE=1 or probe.start())';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const watch = sessions.discovery.watch();
  const render = (): void => {
    const entries = appPickEntries(sessions.discovery.apps, (a) => sessions.isAttached(a));
    const items: AppItem[] = entries.map((entry) => ({
      label: `${entry.attached ? '$(vm-running)' : '$(vm)'} ${entry.label}`,
      description: entry.description,
      detail: entry.detail,
      entry,
    }));
    if (items.length === 0) {
      items.push({
        label: '$(info) No running app found',
        description: '',
        detail: `Looked in ${sessions.discovery.directory}. Start your app with BUSSCOPE=1, or try the demo.`,
        alwaysShow: true,
      });
    }
    items.push(
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(play) Run Demo App', action: 'runDemo', alwaysShow: true },
      { label: '$(plug) Attach to Address…', action: 'address', alwaysShow: true },
    );
    const active = pick.activeItems[0]?.entry?.app;
    pick.items = items;
    // Keep the highlighted app highlighted across refreshes.
    if (active !== undefined) {
      const again = items.find((i) => i.entry?.app.pid === active.pid && i.entry.app.port === active.port);
      if (again !== undefined) pick.activeItems = [again];
    }
  };
  render();
  const listener = sessions.discovery.onDidChange(() => render());
  // Ages change even when the list does not.
  const ageTimer = setInterval(render, 10_000);
  try {
    return await new Promise<AppPickEntry | 'runDemo' | 'address' | undefined>((resolve) => {
      pick.onDidAccept(() => {
        const item = pick.selectedItems[0];
        if (item?.entry !== undefined) resolve(item.entry);
        else if (item?.action !== undefined) resolve(item.action);
        else return; // the "none found" line: keep the picker open
        pick.hide();
      });
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
  } finally {
    clearInterval(ageTimer);
    listener.dispose();
    watch.dispose();
    pick.dispose();
  }
}

async function attach(services: Services, arg: unknown): Promise<SessionResult | undefined> {
  const parsed = parseAttachArg(arg);
  const { sessions } = services;
  try {
    switch (parsed.kind) {
      case 'pid': {
        const session = await sessions.attachPid(parsed.pid, parsed.waitMs);
        announceAttached(services, session);
        return sessionResult(session);
      }
      case 'app': {
        const session = await sessions.attachApp(parsed.app);
        announceAttached(services, session);
        return sessionResult(session);
      }
      case 'pick': {
        const picked = await pickApp(services);
        if (picked === undefined) return undefined;
        if (picked === 'runDemo') return (await vscode.commands.executeCommand<SessionResult | undefined>('busscope.runDemo')) ?? undefined;
        if (picked === 'address') return (await vscode.commands.executeCommand<SessionResult | undefined>('busscope.attachToAddress')) ?? undefined;
        const session = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Busscope: attaching to ${picked.app.name}` }, () =>
          sessions.attachApp(picked.app),
        );
        announceAttached(services, session);
        return sessionResult(session);
      }
      default: {
        const never: never = parsed;
        return never;
      }
    }
  } catch (error) {
    return reportAttachError(services, error, parsed.kind !== 'pick');
  }
}

async function attachToAddress(services: Services, arg: unknown): Promise<SessionResult | undefined> {
  let address = parseAddressArg(arg);
  const programmatic = address !== undefined;
  if (address === undefined) {
    const addressText = await vscode.window.showInputBox({
      title: 'Busscope: Attach to Address (1/2)',
      prompt: "Address of the app's probe: host:port (the probe listens on 127.0.0.1 by default)",
      placeHolder: '127.0.0.1:53123',
      ignoreFocusOut: true,
      validateInput: (text) => {
        const r = parseAddress(text);
        return isAddressError(r) ? r.error : undefined;
      },
    });
    if (addressText === undefined) return undefined;
    const parsed = parseAddress(addressText);
    if (isAddressError(parsed)) return undefined;
    const token = await vscode.window.showInputBox({
      title: 'Busscope: Attach to Address (2/2)',
      prompt: "The probe's token (printed by the app, or in its discovery file)",
      password: true,
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() === '' ? 'Enter the token.' : /\s/.test(text.trim()) ? 'A token has no spaces.' : undefined),
    });
    if (token === undefined) return undefined;
    const remote = nonLoopbackWarning(parsed.host);
    if (remote !== undefined) {
      const choice = await vscode.window.showWarningMessage(`Busscope: attach to ${parsed.host}:${parsed.port}?`, { modal: true, detail: remote }, 'Attach');
      if (choice !== 'Attach') return undefined;
    }
    address = { host: parsed.host, port: parsed.port, token: token.trim() };
  }
  try {
    const a = address;
    const session = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Busscope: attaching to ${a.host}:${a.port}` }, () =>
      services.sessions.attachAddress(a.host, a.port, a.token),
    );
    announceAttached(services, session);
    return sessionResult(session);
  } catch (error) {
    return reportAttachError(services, error, programmatic);
  }
}

async function detach(services: Services, arg: unknown): Promise<number> {
  const { sessions } = services;
  const id = sessionIdOf(arg);
  let targets: Session[];
  if (id !== undefined) {
    const s = sessions.find(id);
    targets = s !== undefined && s.isLive ? [s] : [];
  } else if (arg !== null && typeof arg === 'object' && (arg as { all?: unknown }).all === true) {
    targets = [...sessions.liveSessions];
  } else {
    const live = sessions.liveSessions;
    if (live.length === 0) {
      void vscode.window.showInformationMessage('Busscope: no app is attached.');
      return 0;
    }
    if (live.length === 1) targets = [live[0]];
    else {
      const picked = await vscode.window.showQuickPick(
        live.map((s) => ({ label: s.title, description: s.where ?? '', picked: false, session: s })),
        { title: 'Busscope: Detach', placeHolder: 'Apps to detach from', canPickMany: true },
      );
      if (picked === undefined) return 0;
      targets = picked.map((p) => p.session);
    }
  }
  for (const s of targets) {
    sessions.detach(s);
    services.log.info(`detached from ${s.description}`);
  }
  return targets.length;
}

function clear(services: Services, arg: unknown): void {
  const id = sessionIdOf(arg);
  const session = id === undefined ? undefined : services.sessions.find(id);
  services.sessions.clear(session);
}

/** Offers (or reports) re-attaching when an ended app runs again. */
function watchReturns(services: Services): vscode.Disposable[] {
  const { sessions } = services;
  return [
    toVscode(
      sessions.onDidReturn(({ session, app }) => {
        void vscode.window
          .showInformationMessage(`Busscope: ${app.name} is running again (pid ${app.pid}). Re-attach?`, 'Re-attach', 'Always Re-attach')
          .then(async (choice) => {
            if (choice === undefined) return;
            if (choice === 'Always Re-attach')
              await vscode.workspace.getConfiguration('busscope').update('autoReattach', true, vscode.ConfigurationTarget.Global);
            if (!sessions.sessions.includes(session)) return;
            try {
              announceAttached(services, await sessions.reattach(session, app));
            } catch (error) {
              reportAttachError(services, error, false);
            }
          });
      }),
    ),
    toVscode(sessions.onDidReattach(({ session }) => announceAttached(services, session))),
    toVscode(sessions.onDidFailReattach(({ error }) => reportAttachError(services, error, false))),
    toVscode(
      sessions.onDidEndSession((s) => {
        if (s.ended === undefined || s.ended.cause === 'detached' || s.kind !== 'live') return;
        services.log.info(`${s.description}: ${s.ended.reason}`);
        // A protocol error mid-session is worth a notification; an app that exits is not.
        if (s.ended.cause === 'error') void vscode.window.showWarningMessage(`Busscope: the connection to ${s.description} ended: ${s.ended.reason}`);
        else vscode.window.setStatusBarMessage(`Busscope: ${s.title} — ${s.ended.reason}; its data stays until you clear it`, 6000);
      }),
    ),
  ];
}

function toVscode(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}

export function registerSessionCommands(services: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('busscope.attach', (arg?: unknown) => attach(services, arg)),
    vscode.commands.registerCommand('busscope.attachToAddress', (arg?: unknown) => attachToAddress(services, arg)),
    vscode.commands.registerCommand('busscope.detach', (arg?: unknown) => detach(services, arg)),
    vscode.commands.registerCommand('busscope.clear', (arg?: unknown) => clear(services, arg)),
    ...watchReturns(services),
  ];
}
