// What every Busscope tree shares: refreshes are throttled (a live app changes the model hundreds
// of times a second; a tree needs a refresh a second at most), and skipped while the view is hidden
// (done once when it shows again).
import * as vscode from 'vscode';
import { Throttle } from '../sessions/throttle';
import type { BusscopeNode } from './nodes';

export abstract class ThrottledTree implements vscode.TreeDataProvider<BusscopeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<BusscopeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  protected view: vscode.TreeView<BusscopeNode> | undefined;
  private dirty = false;
  private readonly throttle: Throttle;
  protected readonly disposables: vscode.Disposable[] = [];
  /** Full refreshes fired (tests wait on it). */
  refreshes = 0;

  constructor(intervalMs: number) {
    this.throttle = new Throttle(() => this.fire(), intervalMs);
  }

  /** Connects the tree view (for visibility). */
  bindView(view: vscode.TreeView<BusscopeNode>): void {
    this.view = view;
    this.disposables.push(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.dirty) this.fire();
        this.visibilityChanged(e.visible);
      }),
    );
  }

  /** Requests a refresh (throttled; deferred while hidden). */
  refresh(): void {
    if (this.view !== undefined && !this.view.visible) {
      this.dirty = true;
      return;
    }
    this.throttle.schedule();
  }

  protected visibilityChanged(_visible: boolean): void {}

  private fire(): void {
    this.dirty = false;
    this.refreshes++;
    this.onRefresh();
    this.changed.fire(undefined);
  }

  /** Called right before a refresh is announced (update cached data here). */
  protected onRefresh(): void {}

  abstract getTreeItem(node: BusscopeNode): vscode.TreeItem;
  abstract getChildren(node?: BusscopeNode): BusscopeNode[];

  dispose(): void {
    this.throttle.dispose();
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}
