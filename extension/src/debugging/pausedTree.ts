// What the Subscriptions view shows of a paused app, above its buses: a "Paused" node with the event
// breakpoint it stopped at, the dispatch stack in progress (which dispatch, which handler, at what
// depth), and the live subscriptions with listener counts as the paused app reported them (the
// socket is silent while it is stopped, so the rest of the tree may lag by a few milliseconds).
// Nodes are `{ kind: 'debug', sessionId, key }`; everything else is read from `session.debug`.
import * as vscode from 'vscode';
import type { DispatchFrameSnapshot, ProbeSnapshot, SubscriptionSnapshot } from '../../../runtime-probe/src/protocol/index';
import type { Session } from '../sessions/session';
import { formatCount, plural } from '../views/format';
import type { BusscopeNode } from '../views/nodes';
import type { DebugPause } from './link';

export type DebugNode = Extract<BusscopeNode, { kind: 'debug' }>;

const node = (session: Session, key: string): DebugNode => ({ kind: 'debug', sessionId: session.id, key });

/** The nodes shown first under a session: one "Paused" node while its app is stopped. */
export function debugRootNodes(session: Session): BusscopeNode[] {
  return session.isLive && session.debug?.paused !== undefined ? [node(session, 'paused')] : [];
}

function busName(snapshot: ProbeSnapshot, busId: number): string {
  return snapshot.buses.find((b) => b.id === busId)?.name ?? `bus ${busId}`;
}

function subscriptionName(s: SubscriptionSnapshot | undefined, id: number): string {
  if (s === undefined) return `handler #${id}`;
  return `${s.label ?? s.owner ?? 'handler'} #${id}`;
}

function frameText(snapshot: ProbeSnapshot, f: DispatchFrameSnapshot): { label: string; description: string } {
  const sub = snapshot.subscriptions.find((s) => s.id === f.subscriptionId);
  return {
    label: f.type,
    description: `depth ${f.depth} · ${busName(snapshot, f.bus)} · ${f.subscriptionId === 0 ? 'between handlers' : `running ${subscriptionName(sub, f.subscriptionId)}`}`,
  };
}

export function debugChildren(session: Session, parent: DebugNode): BusscopeNode[] {
  const pause = session.debug?.paused;
  if (pause === undefined) return [];
  const state = pause.state;
  const snapshot = state?.snapshot ?? null;
  const key = parent.key;
  if (key === 'paused') {
    if (state === undefined) return [node(session, pause.error !== undefined ? 'error' : 'reading')];
    if (snapshot === null) return [node(session, 'no-probe')];
    const out: BusscopeNode[] = [];
    if (state.eventBreak !== null) out.push(node(session, 'break'));
    if (snapshot.dispatching.length === 0 && state.eventBreak === null) out.push(node(session, 'idle'));
    // The dispatch stack, innermost first (like a call stack).
    for (let i = snapshot.dispatching.length - 1; i >= 0; i--) out.push(node(session, `frame:${i}`));
    out.push(node(session, 'subscriptions'));
    return out;
  }
  if (snapshot === null) return [];
  if (key === 'subscriptions') return snapshot.buses.map((b) => node(session, `bus:${b.id}`));
  if (key.startsWith('bus:')) {
    const bus = Number(key.slice(4));
    return snapshot.types.filter((t) => t.bus === bus).map((t) => node(session, `type:${bus}:${t.type}`));
  }
  if (key.startsWith('type:')) {
    const rest = key.slice(5);
    const colon = rest.indexOf(':');
    const bus = Number(rest.slice(0, colon));
    const type = rest.slice(colon + 1);
    return snapshot.subscriptions
      .filter((s) => s.bus === bus && s.type === type)
      .sort((a, b) => b.priority - a.priority || a.id - b.id)
      .map((s) => node(session, `sub:${s.id}`));
  }
  return [];
}

function pauseHeadline(pause: DebugPause): string {
  const b = pause.state?.eventBreak;
  if (b !== null && b !== undefined) return `at the event breakpoint on ${b.type}`;
  return pause.reason;
}

export function debugTreeItem(session: Session, n: DebugNode): vscode.TreeItem {
  const pause = session.debug?.paused;
  const state = pause?.state;
  const snapshot = state?.snapshot ?? null;
  const item = (label: string, collapsible = vscode.TreeItemCollapsibleState.None): vscode.TreeItem => {
    const it = new vscode.TreeItem(label, collapsible);
    it.id = `s:${session.id}/d:${n.key}`;
    return it;
  };
  if (pause === undefined) return item('(running)');
  const key = n.key;
  if (key === 'paused') {
    const it = item('Paused in the debugger', vscode.TreeItemCollapsibleState.Expanded);
    it.description = `${pauseHeadline(pause)} · “${session.debug?.debugSessionName ?? ''}”`;
    it.tooltip = `${session.description} is stopped in the debugger (${pause.reason}). What follows was read from the paused app through the debug session; the rest of this view shows what arrived before it stopped.`;
    it.iconPath = new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('debugIcon.pauseForeground'));
    it.contextValue = 'busscope.paused';
    return it;
  }
  if (key === 'reading') {
    const it = item('Reading the paused app…');
    it.iconPath = new vscode.ThemeIcon('loading~spin');
    return it;
  }
  if (key === 'error') {
    const it = item('Could not read the paused app');
    it.description = pause.error ?? '';
    it.tooltip = pause.error;
    it.iconPath = new vscode.ThemeIcon('warning');
    return it;
  }
  if (key === 'no-probe') {
    const it = item('No Busscope probe in the paused process');
    it.iconPath = new vscode.ThemeIcon('info');
    return it;
  }
  if (key === 'idle') {
    const it = item('No dispatch in progress');
    it.iconPath = new vscode.ThemeIcon('circle-slash');
    return it;
  }
  if (state === undefined || snapshot === null) return item('(gone)');
  if (key === 'break' && state.eventBreak !== null) {
    const b = state.eventBreak;
    const it = item(`Event breakpoint: ${b.type}`);
    it.description = `${b.bus} · about to dispatch · payload ${b.payload.length > 80 ? `${b.payload.slice(0, 79)}…` : b.payload}`;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(
      `Stopped by the event breakpoint on \`${b.type}\` (bus ${b.bus}), before its handlers run. The code that dispatched it is one frame up the call stack.\n\n`,
    );
    md.appendCodeblock(b.payload, 'json');
    const failed = state.conditionErrors[b.type];
    if (failed !== undefined) md.appendMarkdown(`\n\nIts condition threw (so it broke anyway): ${failed}`);
    it.tooltip = md;
    it.iconPath = new vscode.ThemeIcon('debug-breakpoint', new vscode.ThemeColor('debugIcon.breakpointForeground'));
    return it;
  }
  if (key.startsWith('frame:')) {
    const f = snapshot.dispatching[Number(key.slice(6))];
    if (f === undefined) return item('(gone)');
    const t = frameText(snapshot, f);
    const it = item(t.label);
    it.description = t.description;
    it.tooltip = `Dispatch #${f.seq} of ${f.type} on ${busName(snapshot, f.bus)}, nesting depth ${f.depth}${f.subscriptionId === 0 ? '' : `, in the handler of subscription #${f.subscriptionId}`}.`;
    it.iconPath = new vscode.ThemeIcon('debug-stackframe');
    const sub = snapshot.subscriptions.find((s) => s.id === f.subscriptionId);
    if (sub?.site) it.command = { command: 'busscope.openSite', title: 'Open Subscribe Site', arguments: [sub.site] };
    return it;
  }
  if (key === 'subscriptions') {
    const it = item('Subscriptions (paused snapshot)', vscode.TreeItemCollapsibleState.Collapsed);
    it.description = `${plural(snapshot.subscriptions.length, 'listener')} on ${plural(snapshot.buses.length, 'bus', 'buses')}${snapshot.truncated ? ' (truncated)' : ''}`;
    it.iconPath = new vscode.ThemeIcon('list-tree');
    return it;
  }
  if (key.startsWith('bus:')) {
    const bus = snapshot.buses.find((b) => b.id === Number(key.slice(4)));
    if (bus === undefined) return item('(gone)');
    const it = item(bus.name, vscode.TreeItemCollapsibleState.Collapsed);
    it.description = `${plural(snapshot.types.filter((t) => t.bus === bus.id).length, 'type')} · ${plural(bus.subscriptions, 'listener')}`;
    it.iconPath = new vscode.ThemeIcon('symbol-namespace');
    return it;
  }
  if (key.startsWith('type:')) {
    const rest = key.slice(5);
    const colon = rest.indexOf(':');
    const busId = Number(rest.slice(0, colon));
    const t = snapshot.types.find((x) => x.bus === busId && x.type === rest.slice(colon + 1));
    if (t === undefined) return item('(gone)');
    const it = item(t.type, t.listeners > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const dispatching = snapshot.dispatching.some((f) => f.bus === busId && f.type === t.type);
    it.description = `${t.listeners === 0 ? 'no listeners' : plural(t.listeners, 'listener')}${t.dispatches > 0 ? ` · ${plural(t.dispatches, 'dispatch', 'dispatches')}` : ''}${dispatching ? ' · dispatching' : ''}`;
    it.iconPath = new vscode.ThemeIcon(dispatching ? 'debug-stackframe-focused' : 'symbol-event');
    it.contextValue = 'busscope.type';
    return it;
  }
  if (key.startsWith('sub:')) {
    const s = snapshot.subscriptions.find((x) => x.id === Number(key.slice(4)));
    if (s === undefined) return item('(gone)');
    const it = item(s.label ?? s.owner ?? `subscription #${s.id}`);
    const running = snapshot.dispatching.some((f) => f.subscriptionId === s.id);
    const parts = [
      s.priority !== 0 ? `prio ${s.priority}` : '',
      plural(s.calls, 'call'),
      s.label !== null && s.owner !== null ? s.owner : '',
      s.once ? 'once' : '',
      running ? 'running' : '',
    ];
    it.description = parts.filter((p) => p !== '').join(' · ');
    it.tooltip = `#${s.id} on ${s.type}${s.site ? `\nsubscribed at ${s.site.file}:${s.site.line}:${s.site.column}` : ''}\n${formatCount(s.calls)} calls`;
    it.iconPath = new vscode.ThemeIcon(running ? 'debug-stackframe-focused' : 'symbol-method');
    if (s.site) it.command = { command: 'busscope.openSite', title: 'Open Subscribe Site', arguments: [s.site] };
    return it;
  }
  return item('(gone)');
}

/** The type node's context for event breakpoints: the type name of a Subscriptions-tree node. */
export function eventTypeOfNode(arg: unknown): string | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const n = arg as { kind?: unknown; type?: unknown; key?: unknown };
  if (n.kind === 'type' && typeof n.type === 'string') return n.type;
  if (n.kind === 'debug' && typeof n.key === 'string' && n.key.startsWith('type:')) {
    const rest = n.key.slice(5);
    return rest.slice(rest.indexOf(':') + 1);
  }
  return undefined;
}
