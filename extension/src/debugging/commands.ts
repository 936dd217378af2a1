// *Busscope: Toggle Event Breakpoint…*: from a type in the Subscriptions tree (toggles that type), from
// the palette (a multi-select pick of the known types, then an optional payload condition for the
// new ones), or programmatically:
//   executeCommand('busscope.toggleEventBreakpoint', { type: 'combat.hit', condition?: 'payload.damage > 50', enabled?: true })
//   executeCommand('busscope.toggleEventBreakpoint', { breakpoints: [{ type, condition? }, …] })   // replaces all
// It resolves with the breakpoints in effect afterwards.
import * as vscode from 'vscode';
import type { SessionManager } from '../sessions/sessionManager';
import type { EventBreakpoint, EventBreakpointStore } from './breakpoints';
import { breakpointPickEntries, type BreakpointPickEntry, type BreakpointPickSource } from './breakpointPicker';
import { conditionProblem } from './conditions';
import { eventTypeOfNode } from './pausedTree';

export const TOGGLE_EVENT_BREAKPOINT_COMMAND = 'busscope.toggleEventBreakpoint';

export type BreakpointArg =
  | { readonly kind: 'pick' }
  | { readonly kind: 'toggle'; readonly type: string }
  | { readonly kind: 'one'; readonly type: string; readonly condition: string | undefined; readonly enabled: boolean | undefined }
  | { readonly kind: 'all'; readonly breakpoints: readonly EventBreakpoint[] };

/** Reads the command's argument. @throws TypeError naming the bad field. */
export function parseBreakpointArg(arg: unknown): BreakpointArg {
  if (arg === undefined || arg === null) return { kind: 'pick' };
  const fromTree = eventTypeOfNode(arg);
  if (fromTree !== undefined) return { kind: 'toggle', type: fromTree };
  if (typeof arg === 'string') return { kind: 'toggle', type: arg };
  if (typeof arg !== 'object') throw new TypeError(`${TOGGLE_EVENT_BREAKPOINT_COMMAND}: expected { type } or { breakpoints }, got ${typeof arg}`);
  const o = arg as Record<string, unknown>;
  if (o.breakpoints !== undefined) {
    if (!Array.isArray(o.breakpoints)) throw new TypeError(`${TOGGLE_EVENT_BREAKPOINT_COMMAND}: breakpoints must be an array of { type, condition? }`);
    return { kind: 'all', breakpoints: o.breakpoints as EventBreakpoint[] };
  }
  if (typeof o.type === 'string') {
    if (o.condition !== undefined && typeof o.condition !== 'string') throw new TypeError(`${TOGGLE_EVENT_BREAKPOINT_COMMAND}: condition must be a string`);
    if (o.enabled !== undefined && typeof o.enabled !== 'boolean') throw new TypeError(`${TOGGLE_EVENT_BREAKPOINT_COMMAND}: enabled must be a boolean`);
    return { kind: 'one', type: o.type, condition: o.condition as string | undefined, enabled: o.enabled as boolean | undefined };
  }
  // Another tree node (a bus, a subscription…): ask.
  return { kind: 'pick' };
}

/** What the attached apps and open traces know, for the picker (types seen only in a paused snapshot too). */
function pickSources(sessions: SessionManager): BreakpointPickSource[] {
  return sessions.sessions.map((s) => ({ model: s.model, pausedTypes: (s.debug?.paused?.state?.snapshot?.types ?? []).map((f) => f.type) }));
}

interface TypeItem extends vscode.QuickPickItem {
  readonly type: string;
}

async function pickBreakpoints(
  store: EventBreakpointStore,
  sessions: SessionManager,
  log: (m: string) => void,
): Promise<readonly EventBreakpoint[] | undefined> {
  const started = performance.now();
  const entries = breakpointPickEntries(pickSources(sessions), store.types);
  const known = new Set(entries.map((e) => e.type));
  const itemOf = (e: BreakpointPickEntry): TypeItem => {
    const bp = store.get(e.type);
    return {
      label: e.type,
      type: e.type,
      description: [e.description, bp?.condition !== undefined ? `if ${bp.condition}` : ''].filter((x) => x !== '').join(' · '),
    };
  };
  const appItems = entries.filter((e) => !e.library).map(itemOf);
  const libraryItems = entries.filter((e) => e.library).map(itemOf);
  // The app's types first; Node's internals' and packages' after a separator (a user debugging their
  // app looks for their own events; `close` on every socket is rarely it).
  const separator = { label: 'libraries: Node internals, node_modules, no listener of yours', type: '', kind: vscode.QuickPickItemKind.Separator } as TypeItem;
  const base: TypeItem[] = libraryItems.length === 0 ? appItems : [...appItems, separator, ...libraryItems];
  const selectable = [...appItems, ...libraryItems];
  log(`event-breakpoint picker: ${entries.length} types (${libraryItems.length} only on library emitters) in ${(performance.now() - started).toFixed(1)} ms`);
  const pick = vscode.window.createQuickPick<TypeItem>();
  pick.title = 'Busscope: Event Breakpoints';
  pick.placeholder = 'Event types to break on: the debugger stops one frame below the code that dispatched or emitted (type a name to add one)';
  pick.canSelectMany = true;
  pick.matchOnDescription = true;
  pick.items = base;
  pick.selectedItems = selectable.filter((i) => store.has(i.type));
  pick.onDidChangeValue((value) => {
    const v = value.trim();
    const selected = pick.selectedItems;
    const extra = v !== '' && !known.has(v) ? [{ label: v, type: v, description: 'not seen yet: break when it is dispatched', alwaysShow: true }] : [];
    const kept = selected.filter((i) => !known.has(i.type) && i.type !== v);
    pick.items = [...extra, ...kept, ...base];
    pick.selectedItems = pick.items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator && selected.some((s) => s.type === i.type));
  });
  const chosen = await new Promise<string[] | undefined>((resolve) => {
    pick.onDidAccept(() => {
      resolve(pick.selectedItems.map((i) => i.type));
      pick.hide();
    });
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  if (chosen === undefined) return undefined;
  const added = chosen.filter((t) => !store.has(t));
  let condition: string | undefined;
  if (added.length > 0) {
    const answer = await vscode.window.showInputBox({
      title: `Busscope: Condition for ${added.length === 1 ? added[0] : `${added.length} new event breakpoints`} (optional)`,
      prompt:
        'Break only when this JavaScript expression over `payload` (and `type`) is true. Empty: break on every dispatch. It runs in your app, installed by the debugger.',
      placeHolder: 'payload.damage > 50',
      validateInput: (v) => (v.trim() === '' ? undefined : conditionProblem(v)),
    });
    if (answer === undefined) return undefined;
    condition = answer.trim() === '' ? undefined : answer.trim();
  }
  const next: EventBreakpoint[] = chosen.map((type) => store.get(type) ?? (condition === undefined ? { type } : { type, condition }));
  return store.replace(next);
}

/**
 * `applied` resolves once a change reached the debugged apps through their debug sessions (muting a
 * removed breakpoint there at once); the command waits for it, so a "continue" right after it cannot
 * overtake it.
 */
export function registerEventBreakpointCommand(
  store: EventBreakpointStore,
  sessions: SessionManager,
  applied: () => Promise<void>,
  log: (m: string) => void = () => undefined,
): vscode.Disposable {
  return vscode.commands.registerCommand(TOGGLE_EVENT_BREAKPOINT_COMMAND, async (arg?: unknown): Promise<readonly EventBreakpoint[]> => {
    const list = await runToggle(store, sessions, arg, log);
    await applied();
    return list;
  });
}

async function runToggle(store: EventBreakpointStore, sessions: SessionManager, arg: unknown, log: (m: string) => void): Promise<readonly EventBreakpoint[]> {
  const a = parseBreakpointArg(arg);
  switch (a.kind) {
    case 'pick': {
      const result = await pickBreakpoints(store, sessions, log);
      if (result !== undefined)
        vscode.window.setStatusBarMessage(
          `Busscope: ${result.length === 0 ? 'no event breakpoints' : `breaking on ${result.map((b) => b.type).join(', ')}`}`,
          4000,
        );
      return store.list;
    }
    case 'toggle': {
      const on = await store.toggle(a.type);
      vscode.window.setStatusBarMessage(`Busscope: ${on ? 'breaking on' : 'no longer breaking on'} ${a.type}`, 4000);
      return store.list;
    }
    case 'one': {
      const on = a.enabled ?? (!store.has(a.type) || (a.condition !== undefined && store.get(a.type)?.condition !== a.condition));
      if (on) await store.set(a.type, a.condition);
      else await store.remove(a.type);
      return store.list;
    }
    case 'all':
      return store.replace(a.breakpoints);
    default: {
      const never: never = a;
      return never;
    }
  }
}
