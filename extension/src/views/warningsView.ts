// *Warnings*: what the analyses found, most severe first, with the explanation as tooltip and the
// source sites as children (click to open). With several sessions, grouped by session.
import * as vscode from 'vscode';
import type { Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { analysisPartialText } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import { plural } from './format';
import { nodeId, type BusscopeNode } from './nodes';
import { siteLabel, siteText } from './sites';
import { ThrottledTree } from './treeBase';

export const WARNINGS_VIEW = 'busscope.warnings';

export const WARNING_KIND_LABELS: Readonly<Record<Warning['kind'], string>> = {
  'listener-growth': 'listener growth',
  'dead-owner-listeners': 'dead owner',
  'owner-gone-still-registered': 'owner gone, still subscribed',
  'unheard-dispatch': 'nobody listens',
  'never-dispatched': 'never dispatched',
  'subscription-churn': 'churn',
  'slow-handler': 'slow handler',
  'throwing-handler': 'throwing handler',
  'depth-limit-storm': 'depth limit',
  'starved-subscriber': 'starved',
  'queue-growth': 'queue growth',
};

export function severityThemeIcon(w: Warning): vscode.ThemeIcon {
  switch (w.severity) {
    case 'error':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
    case 'warning':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    case 'info':
      return new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground'));
    default: {
      const never: never = w.severity;
      return never;
    }
  }
}

export class WarningsTree extends ThrottledTree {
  constructor(private readonly sessions: SessionManager) {
    super(1000);
    this.disposables.push(
      sessions.onDidChangeSessions(() => this.refresh()),
      sessions.onDidUpdateSession(() => this.refresh()),
    );
  }

  private withWarnings(): readonly Session[] {
    return this.sessions.sessions.filter((s) => s.warnings.length > 0);
  }

  /** Total warnings across sessions (the view's badge). */
  get count(): number {
    let n = 0;
    for (const s of this.sessions.sessions) n += s.warnings.length;
    return n;
  }

  protected override onRefresh(): void {
    if (this.view !== undefined) {
      const n = this.count;
      this.view.badge = n > 0 ? { value: n, tooltip: plural(n, 'warning') } : undefined;
      this.view.message = this.partialMessage();
    }
  }

  /** Said above the tree while a session's analyses are still catching up (undefined: none is). */
  partialMessage(): string | undefined {
    const partial = this.sessions.sessions.filter((s) => s.analyzer.progress.partial);
    if (partial.length === 0) return undefined;
    const text = analysisPartialText(partial[0].analyzer.progress);
    return this.sessions.sessions.length > 1 ? `${partial[0].title}: ${text}` : text;
  }

  getChildren(node?: BusscopeNode): BusscopeNode[] {
    if (node === undefined) {
      const sessions = this.withWarnings();
      if (sessions.length === 1 && this.sessions.sessions.length === 1) return this.warningsOf(sessions[0]);
      return sessions.map((s) => ({ kind: 'session', sessionId: s.id }));
    }
    const session = 'sessionId' in node ? this.sessions.find(node.sessionId) : undefined;
    if (session === undefined) return [];
    if (node.kind === 'session') return this.warningsOf(session);
    if (node.kind === 'warning') {
      const w = session.warnings.find((x) => x.id === node.warningId);
      return w === undefined ? [] : w.sites.map((site, index) => ({ kind: 'warning-site', sessionId: session.id, warningId: w.id, index, site }));
    }
    return [];
  }

  private warningsOf(session: Session): BusscopeNode[] {
    return session.warnings.map((w) => ({ kind: 'warning', sessionId: session.id, warningId: w.id, site: w.sites[0] ?? null }));
  }

  getTreeItem(node: BusscopeNode): vscode.TreeItem {
    const session = 'sessionId' in node ? this.sessions.find(node.sessionId) : undefined;
    switch (node.kind) {
      case 'session': {
        const item = new vscode.TreeItem(session?.title ?? node.sessionId, vscode.TreeItemCollapsibleState.Expanded);
        item.id = nodeId(node);
        item.description = session === undefined ? '' : plural(session.warnings.length, 'warning');
        item.iconPath = new vscode.ThemeIcon(session?.isLive === true ? 'vm-running' : 'debug-disconnect');
        return item;
      }
      case 'warning': {
        const w = session?.warnings.find((x) => x.id === node.warningId);
        if (w === undefined) return gone(node);
        const item = new vscode.TreeItem(w.title, w.sites.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        const types = w.subjects.types.map((t) => t.type);
        item.description = `${WARNING_KIND_LABELS[w.kind]}${types.length > 0 ? ` · ${types.slice(0, 2).join(', ')}${types.length > 2 ? '…' : ''}` : ''}`;
        const md = new vscode.MarkdownString();
        md.appendText(w.title);
        md.appendMarkdown('\n\n');
        md.appendText(w.explanation);
        if (w.sites.length > 0) {
          md.appendMarkdown('\n\n');
          md.appendText(w.sites.slice(0, 5).map(siteText).join('\n'));
        }
        item.tooltip = md;
        item.iconPath = severityThemeIcon(w);
        item.contextValue = `busscope.warning.${w.kind}`;
        if (w.sites.length > 0) item.command = { command: 'busscope.openSite', title: 'Open Source Location', arguments: [node] };
        return item;
      }
      case 'warning-site': {
        const item = new vscode.TreeItem(siteLabel(node.site), vscode.TreeItemCollapsibleState.None);
        item.id = nodeId(node);
        item.description = node.site.functionName ?? '';
        item.tooltip = siteText(node.site);
        item.iconPath = new vscode.ThemeIcon('go-to-file');
        item.command = { command: 'busscope.openSite', title: 'Open Source Location', arguments: [node] };
        item.contextValue = 'busscope.warningSite';
        return item;
      }
      default:
        return gone(node);
    }
  }
}

function gone(node: BusscopeNode): vscode.TreeItem {
  const item = new vscode.TreeItem('(gone)', vscode.TreeItemCollapsibleState.None);
  item.id = nodeId(node);
  return item;
}
