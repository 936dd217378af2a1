// The status bar item: the attached app (or how many), events per second, warnings. Updated at most
// once a second; a click opens the inspector. Hidden while there is no session.
import * as vscode from 'vscode';
import { debugLinkText } from '../debugging/link';
import type { SessionManager } from '../sessions/sessionManager';
import { Throttle } from '../sessions/throttle';
import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';
import { formatRate, plural } from './format';

export interface StatusBarText {
  readonly text: string;
  readonly tooltip: string;
  readonly visible: boolean;
  readonly warnings: number;
}

/** What the item shows for the current sessions (plain data, for tests). */
export function statusBarText(sessions: SessionManager): StatusBarText {
  const all = sessions.sessions;
  if (all.length === 0) return { text: '', tooltip: '', visible: false, warnings: 0 };
  const live = all.filter((s) => s.isLive);
  let warnings = 0;
  for (const s of all) warnings += s.warnings.length;
  let rate = 0;
  for (const s of live) rate += s.dispatchesPerSecond;
  const shown = live.length > 0 ? live : all;
  const name = shown.length === 1 ? shown[0].title : `${shown.length} ${live.length > 0 ? 'apps' : 'sessions'}`;
  const paused = live.filter((s) => s.debug?.paused !== undefined).length;
  const icon = paused > 0 ? '$(debug-pause)' : live.length > 0 ? '$(pulse)' : '$(debug-disconnect)';
  const rateText = paused > 0 ? ' paused' : live.length > 0 ? ` ${formatRate(rate)}` : '';
  const debugged = shown.length === 1 && shown[0].isLive ? shown[0].debug : undefined;
  const debugName = debugged === undefined ? '' : ` $(debug) ${debugged.debugSessionName}`;
  const text = `${icon} ${name}${rateText}${debugName}${warnings > 0 ? ` $(warning) ${warnings}` : ''}`;
  const debugText = (s: (typeof all)[number]): string => (s.isLive && s.debug !== undefined ? `, ${debugLinkText(s.debug)}` : '');
  const lines = all.map(
    (s) =>
      `${s.description}: ${s.isLive ? `${formatRate(s.dispatchesPerSecond)} dispatches` : (s.ended?.reason ?? '')}, ${plural(s.warnings.length, 'warning')}${debugText(s)}`,
  );
  return { text, tooltip: `Busscope\n${lines.join('\n')}\nClick to open the inspector.`, visible: true, warnings };
}

export class BusscopeStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly throttle = new Throttle(() => this.update(), 1000);
  private readonly disposables: vscode.Disposable[] = [];
  /** What is shown (tests read it). */
  current: StatusBarText = { text: '', tooltip: '', visible: false, warnings: 0 };

  constructor(private readonly sessions: SessionManager) {
    this.item = vscode.window.createStatusBarItem('busscope.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Busscope';
    this.item.command = 'busscope.openInspector';
    this.disposables.push(
      this.item,
      sessions.onDidChangeSessions(() => this.update()),
      sessions.onDidUpdateSession(() => this.throttle.schedule()),
    );
    this.update();
  }

  update(): void {
    const t = statusBarText(this.sessions);
    this.current = t;
    if (!t.visible) {
      this.item.hide();
      return;
    }
    // App names in it: bidi controls escaped, as in the trees.
    this.item.text = visibleText(t.text);
    this.item.tooltip = visibleText(t.tooltip);
    this.item.show();
  }

  dispose(): void {
    this.throttle.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
