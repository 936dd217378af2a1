// Source locations from the probe (subscribe sites, sampled dispatch sites) as editor locations.
// Stack frames name files as absolute paths or file:// URLs (ESM); anything else (node:internal,
// eval, relative) has no file to open.
import path from 'node:path';
import * as vscode from 'vscode';
import type { SiteInfo } from '../../../runtime-probe/src/protocol/index';

export function siteUri(file: string): vscode.Uri | undefined {
  if (/^file:\/\//i.test(file)) {
    try {
      return vscode.Uri.parse(file, true);
    } catch {
      return undefined;
    }
  }
  if (path.isAbsolute(file) || /^[A-Za-z]:[\\/]/.test(file)) return vscode.Uri.file(file);
  return undefined;
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
export async function openSite(site: SiteInfo): Promise<boolean> {
  const uri = siteUri(site.file);
  if (uri === undefined) {
    void vscode.window.showWarningMessage(`Busscope: ${siteText(site)} is not a file on this machine.`);
    return false;
  }
  try {
    const document = await vscode.workspace.openTextDocument(uri);
    const position = sitePosition(site);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: true });
    return true;
  } catch (error) {
    void vscode.window.showWarningMessage(`Busscope: cannot open ${siteText(site)}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}
