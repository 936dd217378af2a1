// Tree labels, descriptions and tooltips show bidi controls escaped, as the inspector page does
// (runtime-probe/src/analysis/visibleText.ts, the one rule for both): names come from the app, and a U+202E in a
// type name must not make the tree show another name. Applied to every Busscope tree where it is
// created (extension.ts), so no tree can forget it. `vscode` is only a type here.
import type * as vscode from 'vscode';
import { hasBidiControls, visibleText } from '../../../runtime-probe/src/analysis/visibleText';

type TreeLabel = string | vscode.TreeItemLabel | undefined;

function visibleLabel(label: TreeLabel): TreeLabel {
  if (label === undefined) return undefined;
  if (typeof label === 'string') return visibleText(label);
  // Escaping moves characters: the highlights' ranges no longer fit, so they go.
  return hasBidiControls(label.label) ? { label: visibleText(label.label) } : label;
}

/** The item, with bidi controls in its label, description and tooltip escaped (in place). */
export function visibleTreeItem<T extends Pick<vscode.TreeItem, 'label' | 'description' | 'tooltip'>>(item: T): T {
  item.label = visibleLabel(item.label);
  if (typeof item.description === 'string') item.description = visibleText(item.description);
  const tooltip = item.tooltip;
  if (typeof tooltip === 'string') item.tooltip = visibleText(tooltip);
  else if (tooltip !== undefined && hasBidiControls(tooltip.value)) tooltip.value = visibleText(tooltip.value);
  return item;
}

/** A provider whose items all pass through `visibleTreeItem`. */
export function withVisibleText<T>(provider: vscode.TreeDataProvider<T>): vscode.TreeDataProvider<T> {
  const shown = (item: vscode.TreeItem | Thenable<vscode.TreeItem>): vscode.TreeItem | Thenable<vscode.TreeItem> =>
    'then' in item && typeof item.then === 'function' ? item.then(visibleTreeItem) : visibleTreeItem(item as vscode.TreeItem);
  return {
    onDidChangeTreeData: provider.onDidChangeTreeData,
    getTreeItem: (element) => shown(provider.getTreeItem(element)),
    getChildren: (element) => provider.getChildren(element),
    getParent: provider.getParent === undefined ? undefined : (element) => provider.getParent!(element),
    resolveTreeItem:
      provider.resolveTreeItem === undefined
        ? undefined
        : async (item, element, token) => {
            const resolved = await provider.resolveTreeItem!(item, element, token);
            return resolved === undefined || resolved === null ? resolved : visibleTreeItem(resolved);
          },
  };
}
