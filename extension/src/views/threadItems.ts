// The tree item of a thread node (an app with worker threads), the same in the *Apps* and the
// *Subscriptions* tree; which threads and buses is views/threadGroups.ts.
import * as vscode from 'vscode';
import type { BusscopeNode } from './nodes';
import { nodeId } from './nodes';
import { threadDescription, type ThreadGroup } from './threadGroups';

export function threadTreeItem(node: Extract<BusscopeNode, { kind: 'thread' }>, t: ThreadGroup, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(t.label, state);
  item.id = nodeId(node);
  item.description = threadDescription(t);
  item.tooltip = `${t.id === 0 ? 'The main thread' : `Worker thread ${t.id}`}${t.exited ? ' (exited)' : ''}: ${threadDescription(t)} created in it`;
  item.iconPath = new vscode.ThemeIcon(t.exited ? 'debug-disconnect' : 'server-process');
  item.contextValue = 'busscope.thread';
  return item;
}
