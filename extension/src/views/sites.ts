// Source locations from the probe (subscribe sites, sampled dispatch sites) as editor locations.
// Which files may be opened is decided by the one rule the inspector uses too
// (inspector/sourcePath.ts): local files only — no URL schemes but file:, no network paths.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { SiteInfo } from '../../../runtime-probe/src/protocol/index';
import { devServerPath, isAbsoluteSourcePath, localSourcePath, resolveSourcePath } from '../inspector/sourcePath';
import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';

/** The site's file as a URI, when it is an absolute local path (Problems entries); else undefined. */
export function siteUri(file: string): vscode.Uri | undefined {
  // A page's site on a dev server (`http://localhost:5173/src/app.ts`): the workspace file it serves.
  if (devServerPath(file) !== undefined) {
    const resolved = resolveSourcePath(file, workspaceFolderPaths(), existsSync);
    return 'error' in resolved ? undefined : vscode.Uri.file(resolved.path);
  }
  const local = localSourcePath(file);
  if ('error' in local || !isAbsoluteSourcePath(local.path)) return undefined;
  return vscode.Uri.file(local.path);
}

/** The site's position (the probe's line and column are 1-based). */
export function sitePosition(site: Pick<SiteInfo, 'line' | 'column'>): vscode.Position {
  return new vscode.Position(Math.max(0, site.line - 1), Math.max(0, site.column - 1));
}

/** `hud.ts:42:7` (file name only), for labels. */
export function siteLabel(site: SiteInfo): string {
  const name = site.file.split(/[\\/]/).pop() ?? site.file;
  return `${name}:${site.line}:${site.column}`;
}

/** Full `file:line:column`, for tooltips. */
export function siteText(site: SiteInfo): string {
  return `${site.file}:${site.line}:${site.column}`;
}

/** Accepts a site or anything carrying one (tree nodes pass `{ site }`). */
export function asSite(value: unknown): SiteInfo | undefined {
  const v = value as { site?: unknown; file?: unknown; line?: unknown; column?: unknown } | undefined;
  if (v === undefined || v === null || typeof v !== 'object') return undefined;
  if (typeof v.file === 'string' && typeof v.line === 'number' && typeof v.column === 'number') return v as unknown as SiteInfo;
  if (v.site !== undefined) return asSite(v.site);
  return undefined;
}

/** Opens the site in an editor with the cursor on it. Returns false (after telling the user) when it cannot. */
function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

export async function openSite(site: SiteInfo): Promise<boolean> {
  const folders = workspaceFolderPaths();
  const resolved = resolveSourcePath(site.file, folders, existsSync);
  if ('error' in resolved) {
    void vscode.window.showWarningMessage(visibleText(`Busscope: cannot open ${siteText(site)}. ${resolved.error}`));
    return false;
  }
  try {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(resolved.path));
    const position = sitePosition(site);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: true });
    return true;
  } catch (error) {
    void vscode.window.showWarningMessage(`Busscope: cannot open ${siteText(site)}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}
