// *Subscriptions*: bus → event type → subscription, with counts, labels and owners; a click on a
// subscription opens its subscribe site. With several sessions the sessions are the top level; in an
// app with worker threads, its threads ("main", "worker 1 · hasher") are the level above its buses.
// Types and subscriptions that a warning is about carry the warning's icon.
import * as vscode from 'vscode';
import type { Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { debugChildren, debugRootNodes, debugTreeItem } from '../debugging/pausedTree';
import { byExecutionOrder, type EventTypeState, type SubscriptionState } from '../../../runtime-probe/src/analysis/model/index';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import { aggregateBuses, groupBuses, LibraryClassifier, LIBRARIES_TOOLTIP, type BusGrouping } from '../../../runtime-probe/src/analysis/busGroups';
import { busesOfNode, busListNodes, busListOf, threadOfNode } from './busTree';
import { formatCount, formatMs, formatRate, plural } from './format';
import { nodeId, type BusscopeNode } from './nodes';
import { siteText } from './sites';
import { threadGroups, type ThreadGroup } from './threadGroups';
import { threadTreeItem } from './threadItems';
import { ThrottledTree } from './treeBase';
import { rankTypes, typePage } from './typePages';

export const SUBSCRIPTIONS_VIEW = 'busscope.subscriptions';

interface WarningIndex {
  readonly bySubscription: Map<number, Warning[]>;
  readonly byType: Map<string, Warning[]>;
}

const typeKey = (bus: number, type: string): string => `${bus}\u0000${type}`;

function indexWarnings(warnings: readonly Warning[]): WarningIndex {
  const bySubscription = new Map<number, Warning[]>();
  const byType = new Map<string, Warning[]>();
  for (const w of warnings) {
    for (const id of w.subjects.subscriptions) (bySubscription.get(id) ?? bySubscription.set(id, []).get(id)!).push(w);
    for (const t of w.subjects.types) {
      const k = typeKey(t.bus, t.type);
      (byType.get(k) ?? byType.set(k, []).get(k)!).push(w);
    }
  }
  return { bySubscription, byType };
}

function severityIcon(warnings: readonly Warning[] | undefined): vscode.ThemeIcon | undefined {
  if (warnings === undefined || warnings.length === 0) return undefined;
  if (warnings.some((w) => w.severity === 'error')) return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  if (warnings.some((w) => w.severity === 'warning')) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  return new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground'));
}

export class SubscriptionsTree extends ThrottledTree {
  private readonly warningIndex = new Map<string, WarningIndex>();
  /** Types of a big bus by activity (session id + bus id → ranking), until the next refresh. */
  private readonly rankings = new Map<string, EventTypeState[]>();
  /** Buses grouped by class and origin, per session (and thread), until the next refresh. */
  private readonly groupings = new Map<string, BusGrouping>();
  /** Each session's threads with their buses (null: one thread), until the next refresh. */
  private readonly threads = new Map<string, ThreadGroup[] | null>();
  /** The buses of each expanded libraries group (one per thread in a threaded app), per session: the probe gets their union. */
  private readonly openLibraries = new Map<string, Map<number | undefined, number[]>>();
  /** Library verdicts persist across refreshes (a bus between listeners keeps its group). */
  private readonly classifiers = new Map<string, LibraryClassifier>();
  /** Appended to a type's description (event breakpoints; set by extension/src/debugging). */
  typeBadge: ((type: string) => string | undefined) | undefined;

  constructor(private readonly sessions: SessionManager) {
    super(1000);
    this.disposables.push(
      sessions.onDidChangeSessions(() => this.refresh()),
      sessions.onDidUpdateSession(() => this.refresh()),
    );
  }

  protected override onRefresh(): void {
    this.warningIndex.clear();
    this.rankings.clear();
    this.groupings.clear();
    this.threads.clear();
    for (const id of this.classifiers.keys()) if (this.sessions.find(id) === undefined) this.classifiers.delete(id);
    for (const id of this.openLibraries.keys()) if (this.sessions.find(id) === undefined) this.openLibraries.delete(id);
  }

  override bindView(view: vscode.TreeView<BusscopeNode>): void {
    super.bindView(view);
    // The probe records library emitters at lifecycle detail until the user looks at them: the
    // expanded libraries group, or a selected library bus or class, asks for full detail (`focus`).
    this.disposables.push(
      view.onDidCollapseElement((e) => {
        const session = e.element.kind === 'libraries' ? this.sessions.find(e.element.sessionId) : undefined;
        if (session !== undefined) this.librariesOpen(session, threadOfNode(e.element), undefined);
      }),
      view.onDidChangeSelection((e) => {
        const selected = e.selection[0];
        for (const session of this.sessions.liveSessions) {
          const mine = selected !== undefined && 'sessionId' in selected && selected.sessionId === session.id;
          void session.focus.set('tree-selection', mine ? busesOfNode(this.grouping(session, threadOfNode(selected)), selected) : []);
        }
      }),
    );
  }

  /** The session's buses (of `thread`, when given) grouped by class and origin (once per refresh). */
  grouping(session: Session, thread?: number): BusGrouping {
    const key = thread === undefined ? session.id : `${session.id}\u0000${thread}`;
    let g = this.groupings.get(key);
    if (g === undefined) {
      let classifier = this.classifiers.get(session.id);
      if (classifier === undefined) this.classifiers.set(session.id, (classifier = new LibraryClassifier()));
      const buses = thread === undefined ? session.model.buses.values() : (this.threadsOf(session)?.find((t) => t.id === thread)?.buses ?? []);
      this.groupings.set(key, (g = groupBuses(buses, classifier)));
    }
    return g;
  }

  /** The session's threads with their buses, or null while it has one (once per refresh). */
  threadsOf(session: Session): ThreadGroup[] | null {
    let t = this.threads.get(session.id);
    if (t === undefined) this.threads.set(session.id, (t = threadGroups(session.model)));
    return t;
  }

  /** A libraries group opened (`buses`) or closed (undefined): the probe records the union of the open ones at full detail. */
  private librariesOpen(session: Session, thread: number | undefined, buses: number[] | undefined): void {
    let open = this.openLibraries.get(session.id);
    if (open === undefined) this.openLibraries.set(session.id, (open = new Map()));
    if (buses === undefined) open.delete(thread);
    else open.set(thread, buses);
    void session.focus.set('libraries-group', [...open.values()].flat());
  }

  /** A page of a bus's types and, when more follow, the node that opens them. */
  private typeNodes(session: Session, busId: number, offset: number): BusscopeNode[] {
    const bus = session.model.buses.get(busId);
    if (bus === undefined) return [];
    const key = `${session.id}\u0000${busId}`;
    const page = typePage(bus, offset, (count) => {
      let r = this.rankings.get(key);
      if (r === undefined || r.length < count) this.rankings.set(key, (r = rankTypes(bus, session.model.now, count)));
      return r;
    });
    const nodes: BusscopeNode[] = page.types.map((t) => ({ kind: 'type', sessionId: session.id, bus: busId, type: t.name }));
    if (page.rest > 0) nodes.push({ kind: 'more-types', sessionId: session.id, bus: busId, offset: page.next, rest: page.rest });
    return nodes;
  }

  private index(session: Session): WarningIndex {
    let i = this.warningIndex.get(session.id);
    if (i === undefined) this.warningIndex.set(session.id, (i = indexWarnings(session.warnings)));
    return i;
  }

  getChildren(node?: BusscopeNode): BusscopeNode[] {
    if (node === undefined) {
      const all = this.sessions.sessions;
      if (all.length === 1) return this.busesOf(all[0]);
      return all.map((s) => ({ kind: 'session', sessionId: s.id }));
    }
    const session = 'sessionId' in node ? this.sessions.find(node.sessionId) : undefined;
    if (session === undefined) return [];
    switch (node.kind) {
      case 'session':
        return this.busesOf(session);
      case 'debug':
        return debugChildren(session, node);
      case 'bus':
        return this.typeNodes(session, node.bus, 0);
      case 'thread':
        return busListNodes(session.id, this.grouping(session, node.thread), { kind: 'root', thread: node.thread });
      case 'libraries': {
        // Shown only while expanded (VS Code asks for the children of expanded nodes on every
        // refresh): its buses, new ones included, are recorded at full detail meanwhile.
        const grouping = this.grouping(session, node.thread);
        this.librariesOpen(session, node.thread, busesOfNode(grouping, node));
        return busListNodes(session.id, grouping, { kind: 'libraries', thread: node.thread });
      }
      case 'bus-class':
        return busListNodes(session.id, this.grouping(session, node.thread), {
          kind: 'class',
          className: node.className,
          library: node.library,
          thread: node.thread,
        });
      case 'more-buses': {
        const list = busListOf(node.parent);
        return list === undefined ? [] : busListNodes(session.id, this.grouping(session, list.thread), list, node.offset);
      }
      case 'more-types':
        return this.typeNodes(session, node.bus, node.offset);
      case 'type': {
        const t = session.model.findType(node.bus, node.type);
        if (t === undefined) return [];
        return [...t.live].sort(byExecutionOrder).map((s) => ({ kind: 'subscription', sessionId: session.id, subscriptionId: s.id, site: s.site }));
      }
      default:
        return [];
    }
  }

  private busesOf(session: Session): BusscopeNode[] {
    // While the app is paused in the debugger, what it reported comes first.
    // Buses named `Class#n` group by class, library emitters into one group, a page at a time.
    // With worker threads, the threads first (each groups its own buses the same way).
    const threads = this.threadsOf(session);
    if (threads !== null) return [...debugRootNodes(session), ...threads.map((t): BusscopeNode => ({ kind: 'thread', sessionId: session.id, thread: t.id }))];
    return [...debugRootNodes(session), ...busListNodes(session.id, this.grouping(session), { kind: 'root' })];
  }

  getTreeItem(node: BusscopeNode): vscode.TreeItem {
    const session = 'sessionId' in node ? this.sessions.find(node.sessionId) : undefined;
    const fallback = (): vscode.TreeItem => {
      const item = new vscode.TreeItem('(gone)', vscode.TreeItemCollapsibleState.None);
      item.id = nodeId(node);
      return item;
    };
    if (session === undefined) return fallback();
    const model = session.model;
    switch (node.kind) {
      case 'debug':
        return debugTreeItem(session, node);
      case 'session': {
        const item = new vscode.TreeItem(session.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = nodeId(node);
        item.description = session.isLive
          ? `${session.where ?? '?'}${session.debug?.paused !== undefined ? ' · paused' : ''}`
          : session.kind === 'trace'
            ? 'trace'
            : 'ended';
        item.iconPath = new vscode.ThemeIcon(session.isLive ? 'vm-running' : session.kind === 'trace' ? 'file-binary' : 'debug-disconnect');
        return item;
      }
      case 'bus': {
        const bus = model.buses.get(node.bus);
        if (bus === undefined) return fallback();
        let listeners = 0;
        let rate = 0;
        for (const t of bus.types.values()) {
          listeners += t.live.size;
          rate += t.rate.ratePerSecond(model.now);
        }
        const item = new vscode.TreeItem(bus.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        item.description = `${plural(bus.types.size, 'type')} · ${plural(listeners, 'listener')}${rateSuffix(session, rate)}`;
        item.tooltip = `Bus "${bus.name}" (id ${bus.id})${bus.disposedAt !== null ? ', disposed' : ''}\n${formatCount(bus.dispatches)} dispatches, ${listeners} live subscriptions`;
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.contextValue = 'busscope.bus';
        return item;
      }
      case 'thread': {
        const t = this.threadsOf(session)?.find((g) => g.id === node.thread);
        if (t === undefined) return fallback();
        return threadTreeItem(node, t, vscode.TreeItemCollapsibleState.Expanded);
      }
      case 'libraries': {
        const grouping = this.grouping(session, node.thread);
        const sum = aggregateBuses(
          busesOfNode(grouping, node).map((id) => model.buses.get(id)!),
          model.now,
        );
        const item = new vscode.TreeItem('libraries', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        item.description = `${plural(sum.buses, 'emitter')} · ${plural(sum.listeners, 'listener')} · lifecycle only until expanded`;
        item.tooltip = `${LIBRARIES_TOOLTIP}\n${formatCount(sum.buses)} emitters, ${formatCount(sum.listeners)} live listeners, ${formatCount(sum.dispatches)} dispatches recorded`;
        item.iconPath = new vscode.ThemeIcon('library');
        item.contextValue = 'busscope.libraries';
        return item;
      }
      case 'bus-class': {
        const c = this.grouping(session, node.thread).classOf(node.className, node.library);
        if (c === undefined) return fallback();
        const sum = aggregateBuses(c.buses, model.now);
        const item = new vscode.TreeItem(`${node.className} ×${formatCount(sum.buses)}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        item.description = `${plural(sum.listeners, 'listener')} · ${plural(sum.dispatches, 'dispatch', 'dispatches')}${rateSuffix(session, sum.rate)}`;
        item.tooltip = `${formatCount(sum.buses)} ${node.className} instances${sum.disposed > 0 ? ` (${formatCount(sum.disposed)} disposed)` : ''}\n${formatCount(sum.listeners)} live listeners, ${formatCount(sum.dispatches)} dispatches over ${plural(sum.types, 'event type')}`;
        item.iconPath = new vscode.ThemeIcon('symbol-class');
        item.contextValue = 'busscope.busClass';
        return item;
      }
      case 'more-buses': {
        const item = new vscode.TreeItem(`${formatCount(node.rest)} more…`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        item.tooltip = `${node.rest} more entries here. Expand to list the next ones.`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        return item;
      }
      case 'more-types': {
        const item = new vscode.TreeItem(`${formatCount(node.rest)} more types…`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        item.description = 'less active';
        item.tooltip = `${node.rest} more event types on this bus, the least active (by live listeners, then dispatch rate). Expand to list the next ones.`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        return item;
      }
      case 'type': {
        const t = model.findType(node.bus, node.type);
        if (t === undefined) return fallback();
        const warnings = this.index(session).byType.get(typeKey(node.bus, node.type));
        const item = new vscode.TreeItem(t.name, t.live.size > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        const badge = this.typeBadge?.(t.name);
        const now = session.isLive ? model.now : null;
        item.description = badge === undefined ? typeDescription(t, now) : `${badge} · ${typeDescription(t, now)}`;
        item.tooltip = typeTooltip(t, now, warnings);
        item.iconPath = severityIcon(warnings) ?? new vscode.ThemeIcon('symbol-event');
        item.contextValue = 'busscope.type';
        return item;
      }
      case 'subscription': {
        const s = model.subscriptions.get(node.subscriptionId);
        if (s === undefined) return fallback();
        const warnings = this.index(session).bySubscription.get(s.id);
        const item = new vscode.TreeItem(s.label ?? s.owner ?? `subscription #${s.id}`, vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        item.description = subscriptionDescription(s);
        item.tooltip = subscriptionTooltip(s, warnings);
        item.iconPath = severityIcon(warnings) ?? new vscode.ThemeIcon('symbol-method');
        if (s.site !== null) {
          item.contextValue = 'busscope.subscription.withSite';
          item.command = { command: 'busscope.openSite', title: 'Open Subscribe Site', arguments: [node] };
        } else item.contextValue = 'busscope.subscription';
        return item;
      }
      default:
        return fallback();
    }
  }
}

/**
 * ` · 12/s` while the app runs. An ended session or a trace has no current rate: the last window's
 * rate would stay on screen forever, as if the app were still dispatching.
 */
function rateSuffix(session: { readonly isLive: boolean }, perSecond: number): string {
  return session.isLive ? ` · ${formatRate(perSecond)}` : '';
}

/** `now` is null when the session is not live (no rate shown). */
function typeDescription(t: EventTypeState, now: number | null): string {
  const parts = [t.live.size === 0 ? 'no listeners' : plural(t.live.size, 'listener')];
  parts.push(plural(t.dispatches, 'dispatch', 'dispatches'));
  const rate = now === null ? 0 : t.rate.ratePerSecond(now);
  if (rate > 0) parts.push(formatRate(rate));
  if (t.unheard > 0 && t.live.size > 0) parts.push(`${formatCount(t.unheard)} unheard`);
  return parts.join(' · ');
}

function typeTooltip(t: EventTypeState, now: number | null, warnings: readonly Warning[] | undefined): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${escape(t.name)}**\n\n`);
  md.appendMarkdown(`${t.live.size} live listeners (${t.subscribedEver} subscribed over time)  \n`);
  md.appendMarkdown(
    `${formatCount(t.dispatches)} dispatches${now === null ? '' : `, ${formatRate(t.rate.ratePerSecond(now))}`}; ${formatCount(t.unheard)} unheard, ${formatCount(t.consumed)} consumed  \n`,
  );
  if (t.dispatches > 0)
    md.appendMarkdown(
      `mean ${formatMs(t.totalDuration / Math.max(1, t.dispatches - t.dispatchesBeforeAttach))}, max ${formatMs(t.maxDuration)}, max depth ${t.maxDepth}  \n`,
    );
  if (t.handlerErrors > 0) md.appendMarkdown(`${t.handlerErrors} handler errors  \n`);
  appendWarnings(md, warnings);
  return md;
}

function subscriptionDescription(s: SubscriptionState): string {
  const parts: string[] = [];
  if (s.priority !== 0) parts.push(`prio ${s.priority}`);
  parts.push(plural(s.calls, 'call'));
  if (s.label !== null && s.owner !== null) parts.push(s.owner);
  if (s.errors > 0) parts.push(plural(s.errors, 'error'));
  if (s.consumed > 0) parts.push(`consumed ${formatCount(s.consumed)}`);
  if (s.once) parts.push('once');
  if (s.beforeProbe) parts.push('subscribed before the probe started');
  return parts.join(' · ');
}

function subscriptionTooltip(s: SubscriptionState, warnings: readonly Warning[] | undefined): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${escape(s.label ?? `subscription #${s.id}`)}** on \`${escape(s.type.name)}\` (#${s.id})\n\n`);
  if (s.owner !== null) md.appendMarkdown(`owner ${escape(s.owner)}  \n`);
  md.appendMarkdown(`priority ${s.priority}${s.once ? ', once' : ''}  \n`);
  if (s.site !== null)
    md.appendMarkdown(`subscribed at \`${escape(siteText(s.site))}\`${s.site.functionName !== null ? ` in ${escape(s.site.functionName)}` : ''}  \n`);
  else if (s.beforeProbe)
    md.appendMarkdown('subscribed before the probe started: no subscribe site (start the probe first, or run the app with `BUSSCOPE=1`)  \n');
  md.appendMarkdown(`${s.calls} calls`);
  const h = s.durations;
  if (h !== null && h.count > 0) md.appendMarkdown(`; mean ${formatMs(h.mean)}, p95 ${formatMs(h.quantile(0.95))}, max ${formatMs(h.max)}`);
  md.appendMarkdown('  \n');
  if (s.errors > 0 && s.lastError !== null) md.appendMarkdown(`${s.errors} errors, last: ${escape(s.lastError.message)}  \n`);
  appendWarnings(md, warnings);
  return md;
}

function appendWarnings(md: vscode.MarkdownString, warnings: readonly Warning[] | undefined): void {
  if (warnings === undefined) return;
  for (const w of warnings) md.appendMarkdown(`\n\n$(warning) **${escape(w.title)}**  \n${escape(w.explanation)}`);
  md.supportThemeIcons = true;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
