// Warnings as Problems: a DiagnosticCollection kept equal to what the analyses currently say, so a
// warning that no longer holds disappears, and a detached or cleared session takes its problems
// with it. Updated on a throttle (the analyses run a few times a second; Problems need less).
import * as vscode from 'vscode';
import type { Severity } from '../../../runtime-probe/src/analysis/analyses/index';
import type { SessionManager } from '../sessions/sessionManager';
import { Throttle } from '../sessions/throttle';
import { sitePosition, siteUri } from '../views/sites';
import { diagnosticEntries } from './entries';

export const DIAGNOSTIC_SOURCE = 'Busscope';

function severity(s: Severity): vscode.DiagnosticSeverity {
  switch (s) {
    case 'error':
      return vscode.DiagnosticSeverity.Error;
    case 'warning':
      return vscode.DiagnosticSeverity.Warning;
    case 'info':
      return vscode.DiagnosticSeverity.Information;
    default: {
      const never: never = s;
      return never;
    }
  }
}

export class WarningDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('busscope');
  private readonly throttle = new Throttle(() => this.update(), 1000);
  private readonly disposables: vscode.Disposable[] = [];
  private enabled: boolean;

  constructor(
    private readonly sessions: SessionManager,
    enabled: boolean,
  ) {
    this.enabled = enabled;
    this.disposables.push(
      this.collection,
      sessions.onDidChangeSessions(() => this.update()),
      sessions.onDidUpdateSession(() => this.throttle.schedule()),
    );
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.update();
  }

  /** Recomputes every diagnostic from the sessions' current warnings. */
  update(): void {
    if (!this.enabled) {
      this.collection.clear();
      return;
    }
    const byFile = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
    for (const e of diagnosticEntries(this.sessions.sessions)) {
      const uri = siteUri(e.site.file);
      if (uri === undefined) continue;
      const position = sitePosition(e.site);
      const d = new vscode.Diagnostic(new vscode.Range(position, position), e.message, severity(e.severity));
      d.source = DIAGNOSTIC_SOURCE;
      d.code = e.kind;
      const related: vscode.DiagnosticRelatedInformation[] = [];
      for (const r of e.related) {
        const ru = siteUri(r.file);
        if (ru !== undefined) related.push(new vscode.DiagnosticRelatedInformation(new vscode.Location(ru, sitePosition(r)), 'also here'));
      }
      if (related.length > 0) d.relatedInformation = related;
      const key = uri.toString();
      let entry = byFile.get(key);
      if (entry === undefined) byFile.set(key, (entry = { uri, diagnostics: [] }));
      entry.diagnostics.push(d);
    }
    // Replace everything: files whose warnings all went away are cleared too.
    this.collection.clear();
    for (const { uri, diagnostics } of byFile.values()) this.collection.set(uri, diagnostics);
  }

  dispose(): void {
    this.throttle.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
