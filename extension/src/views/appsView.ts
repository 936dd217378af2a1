// *Apps*: the sessions (live, ended, traces) with a few facts each (and, in an app with worker threads,
// its threads with the buses each created), then the running apps that could be attached (kept fresh
// from discovery while the view is visible; a click attaches).
import * as vscode from 'vscode';
import { debugLinkText } from '../debugging/link';
import { formatAge } from '../sessions/address';
import { OVERFLOW_NAME } from '../../../runtime-probe/src/protocol/index';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import { formatCount, formatRate, plural } from './format';
import { nodeId, type BusscopeNode } from './nodes';
import { appsThreadChildren, threadGroups } from './threadGroups';
import { threadTreeItem } from './threadItems';
import { ThrottledTree } from './treeBase';

export const APPS_VIEW = 'busscope.apps';

export class AppsTree extends ThrottledTree {
  private discoveryWatch: { dispose(): void } | undefined;

  constructor(private readonly sessions: SessionManager) {
    super(1000);
    this.disposables.push(
      sessions.onDidChangeSessions(() => this.refresh()),
      sessions.onDidUpdateSession(() => this.refresh()),
      sessions.discovery.onDidChange(() => this.refresh()),
    );
  }

  protected override visibilityChanged(visible: boolean): void {
    if (visible && this.discoveryWatch === undefined) this.discoveryWatch = this.sessions.discovery.watch();
    else if (!visible && this.discoveryWatch !== undefined) {
      this.discoveryWatch.dispose();
      this.discoveryWatch = undefined;
    }
  }

  override bindView(view: vscode.TreeView<BusscopeNode>): void {
    super.bindView(view);
    this.visibilityChanged(view.visible);
  }

  getChildren(node?: BusscopeNode): BusscopeNode[] {
    if (node === undefined) {
      const out: BusscopeNode[] = this.sessions.sessions.map((s) => ({ kind: 'session', sessionId: s.id }));
      for (const app of this.sessions.discovery.apps) {
        if (!this.sessions.isAttached(app)) out.push({ kind: 'discovered', app });
      }
      return out;
    }
    if (node.kind === 'session') {
      const s = this.sessions.find(node.sessionId);
      if (s === undefined) return [];
      const facts: BusscopeNode[] = sessionFacts(s).map(([key, label, value]) => ({ kind: 'session-info', sessionId: s.id, key, label, value }));
      const threads = threadGroups(s.model) ?? [];
      return [...facts, ...threads.map((t): BusscopeNode => ({ kind: 'thread', sessionId: s.id, thread: t.id }))];
    }
    if (node.kind === 'thread') {
      const s = this.sessions.find(node.sessionId);
      const t = s === undefined ? undefined : threadGroups(s.model)?.find((g) => g.id === node.thread);
      return t === undefined ? [] : appsThreadChildren(node.sessionId, t);
    }
    return [];
  }

  getTreeItem(node: BusscopeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session': {
        const s = this.sessions.find(node.sessionId);
        const item = new vscode.TreeItem(s?.title ?? node.sessionId, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = nodeId(node);
        if (s === undefined) return item;
        item.description = sessionDescription(s);
        item.tooltip = s.ended === undefined ? `${s.description}: attached` : `${s.description}: ${s.ended.reason}`;
        if (s.kind === 'trace') {
          item.iconPath = new vscode.ThemeIcon('file-binary');
          item.contextValue = 'busscope.session.trace';
        } else if (s.isLive && s.debug?.paused !== undefined) {
          item.iconPath = new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('debugIcon.pauseForeground'));
          item.contextValue = 'busscope.session.live';
        } else if (s.isLive) {
          item.iconPath = new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('charts.green'));
          item.contextValue = 'busscope.session.live';
        } else {
          item.iconPath = new vscode.ThemeIcon('debug-disconnect');
          item.contextValue = 'busscope.session.ended';
        }
        return item;
      }
      case 'session-info': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        item.description = node.value;
        item.tooltip = `${node.label}: ${node.value}`;
        return item;
      }
      case 'thread': {
        const s = this.sessions.find(node.sessionId);
        const t = s === undefined ? undefined : threadGroups(s.model)?.find((g) => g.id === node.thread);
        if (t === undefined) return goneItem(node);
        return threadTreeItem(node, t, vscode.TreeItemCollapsibleState.Collapsed);
      }
      case 'bus': {
        const bus = this.sessions.find(node.sessionId)?.model.buses.get(node.bus);
        if (bus === undefined) return goneItem(node);
        const item = new vscode.TreeItem(bus.name, vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        item.description = `${plural(bus.types.size, 'type')} · ${plural(bus.dispatches, 'dispatch', 'dispatches')}${bus.disposedAt !== null ? ' · disposed' : ''}`;
        item.tooltip = `Bus "${bus.name}" (id ${bus.id}): its event types and subscriptions are in the Subscriptions view`;
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.contextValue = 'busscope.bus';
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        return item;
      }
      case 'discovered': {
        const app = node.app;
        const item = new vscode.TreeItem(app.name, vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        item.description = `pid ${app.pid} · not attached`;
        item.tooltip = `${app.name} (pid ${app.pid}) in ${app.cwd}\n${app.host}:${app.port}, started ${formatAge(Date.now() - app.startTime)} ago\nClick to attach.`;
        item.iconPath = new vscode.ThemeIcon('circle-large-outline');
        item.contextValue = 'busscope.discovered';
        item.command = { command: 'busscope.attach', title: 'Attach', arguments: [node] };
        return item;
      }
      default: {
        const item = new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        return item;
      }
    }
  }

  override dispose(): void {
    this.discoveryWatch?.dispose();
    this.discoveryWatch = undefined;
    super.dispose();
  }
}

function goneItem(node: BusscopeNode): vscode.TreeItem {
  const item = new vscode.TreeItem('(gone)', vscode.TreeItemCollapsibleState.None);
  item.id = nodeId(node);
  return item;
}

export function sessionDescription(s: Session): string {
  if (s.kind === 'trace') return `trace · ${plural(s.model.totalDispatches, 'dispatch', 'dispatches')} · ${plural(s.warnings.length, 'warning')}`;
  if (s.isLive) {
    const pid = s.source.kind === 'browser' ? undefined : s.app?.pid;
    const debug = s.debug === undefined ? '' : ` · ${debugLinkText(s.debug)}`;
    return `${pid !== undefined ? `pid ${pid} · ` : ''}${formatRate(s.dispatchesPerSecond)} · ${plural(s.warnings.length, 'warning')}${debug}`;
  }
  return `ended: ${s.ended?.reason ?? 'unknown'}`;
}

function sessionFacts(s: Session): [string, string, string][] {
  const facts: [string, string, string][] = [];
  const app = s.app;
  if (s.source.kind === 'trace') facts.push(['file', 'file', s.source.file]);
  if (app !== null && s.source.kind !== 'browser') {
    facts.push(['pid', 'pid', String(app.pid)]);
    facts.push(['cwd', 'folder', app.cwd]);
    facts.push(['runtime', 'runtime', app.runtime]);
  }
  if (s.source.kind === 'browser') {
    facts.push(['origin', 'page', s.source.origin]);
    if (s.source.reloads > 0) facts.push(['reloads', 'reloads', String(s.source.reloads)]);
  } else if (s.source.kind !== 'trace') {
    const addr = s.source.kind === 'app' ? `${s.source.app.host}:${s.source.app.port}` : `${s.source.host}:${s.source.port}`;
    facts.push(['address', 'address', addr]);
  }
  const info = s.model.sessionInfo;
  if (info.probeVersion !== null) facts.push(['probe', 'probe', `${info.probeVersion} (protocol ${info.protocolVersion ?? '?'})`]);
  facts.push(['buses', 'buses', String(s.model.buses.size)]);
  facts.push(['dispatches', 'dispatches', formatCount(s.model.totalDispatches)]);
  if (s.model.drops.records > 0) facts.push(['drops', 'dropped records', formatCount(s.model.drops.records)]);
  const overflow = s.nameOverflow;
  if (overflow !== undefined) {
    // PROTOCOL.md, "String table caps": names past the cap share one bucket.
    const where = [
      overflow.appTableFull ? "the app's table is full" : '',
      overflow.folded > 0 ? `${formatCount(overflow.folded)} definitions past this session's cap` : '',
    ]
      .filter((t) => t !== '')
      .join('; ');
    facts.push(['names', 'too many distinct names', `${where}: newer names show as "${OVERFLOW_NAME}"`]);
  }
  facts.push(['warnings', 'warnings', String(s.warnings.length)]);
  if (s.debug !== undefined && s.isLive) {
    const d = s.debug;
    facts.push([
      'debug',
      'debug session',
      `${d.debugSessionName}${d.paused !== undefined ? ' (paused)' : ''}${d.autoAttached ? ', attached automatically' : ''}`,
    ]);
  }
  if (s.ended !== undefined) facts.push(['ended', 'ended', `${s.ended.reason}, ${formatAge(Date.now() - s.ended.at)} ago`]);
  else facts.push(['attached', 'attached', `${formatAge(Date.now() - s.startedAt)} ago`]);
  return facts;
}
